import { ThreadLost, createWorkerPool, workerModule } from '../../lib/worker-pool.ts';
import type { SlipsRead } from './packing-slips.ts';

/** What reading a packing-slip PDF found: its slips, or why the file cannot be read at all. */
export type SlipReading =
  ({ problem: null; pages: number } & SlipsRead) | { problem: 'damaged' | 'encrypted' | 'too-complex' } | { problem: 'too-many-pages'; pages: number };

export type SlipReader = { read(pdf: Uint8Array): Promise<SlipReading>; close(): Promise<void> };

/** What one upload's reading may take: its time (ms), and how much the process may grow meanwhile (MB), the thread's start included. */
export type SlipReaderLimits = { timeoutMs: number; maxMb: number };

/**
 * Reads packing-slip PDFs on a thread of its own: a 500-page PDF is about a second of CPU, which
 * would otherwise hold up every other request of the web process. Uploads wait their turn.
 *
 * A PDF can be made to inflate a few hundred kB into gigabytes, or to take minutes: a reading past
 * its limits has its thread stopped (never the process) and is 'too-complex'; the next upload gets a new thread.
 */
export function createSlipReader({ timeoutMs, maxMb }: SlipReaderLimits): SlipReader {
  // Most hours see no upload: the thread (about 100 MB with pdf.js) stops after a minute without one.
  // The process's growth is watched, as most of what pdf.js decodes lies outside the thread's heap (ArrayBuffers).
  // The heap limit is only a second line above it: a thread whose single allocation overshoots its limit by more than
  // Node's 16 MB leeway aborts the whole process instead of stopping alone.
  const pool = createWorkerPool<Uint8Array, SlipReading>(workerModule('slip-reader-worker', import.meta.url), 1, 'packing-slip reader', {
    idleMs: 60_000,
    heapMb: 2 * maxMb,
    taskMs: timeoutMs,
    growthMb: maxMb,
    preload: ['pdfjs-dist/legacy/build/pdf.mjs', 'pdfjs-dist/legacy/build/pdf.worker.mjs'],
  });
  return {
    read: (pdf) =>
      pool.run(pdf).catch((error: unknown) => {
        if (error instanceof ThreadLost) return { problem: 'too-complex' as const };
        throw error;
      }),
    close: () => pool.close(),
  };
}
