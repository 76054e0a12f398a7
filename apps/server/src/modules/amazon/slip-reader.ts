import { ThreadLost, createWorkerPool, workerModule } from '../../lib/worker-pool.ts';
import type { SlipsRead } from './packing-slips.ts';

/** What reading a packing-slip PDF found: its slips, or why the file cannot be read at all. */
export type SlipReading =
  ({ problem: null; pages: number } & SlipsRead) | { problem: 'damaged' | 'encrypted' | 'too-complex' } | { problem: 'too-many-pages'; pages: number };

export type SlipReader = { read(pdf: Uint8Array): Promise<SlipReading>; close(): Promise<void> };

/**
 * What one upload's reading may take: its time (ms), and how much the process may grow meanwhile over its size with no
 * reading under way (MB), the thread's start included; and how many uploads may wait their turn (past them: 503).
 */
export type SlipReaderLimits = { timeoutMs: number; maxMb: number; queue: number };

/**
 * Reads packing-slip PDFs on a thread of its own: a 500-page PDF is about a second of CPU, which
 * would otherwise hold up every other request of the web process. Uploads wait their turn.
 *
 * A PDF can be made to inflate a few hundred kB into gigabytes, or to take minutes: a reading past
 * its limits has its thread stopped (never the process) and is 'too-complex'; the next upload gets a new thread.
 */
export function createSlipReader({ timeoutMs, maxMb, queue }: SlipReaderLimits): SlipReader {
  // Most hours see no upload: the thread (about 100 MB with pdf.js) stops after a minute without one.
  // The process's growth is watched, as most of what pdf.js decodes lies outside the thread's heap (ArrayBuffers).
  // The heap limit is only a second line above it, out of the watch's reach: a thread whose single allocation overshoots
  // its limit by more than Node's 16 MB leeway aborts the whole process instead of stopping alone. (ArrayBuffers are not
  // counted in it: a thread of 100 MB heap holds 2 GB of them.) A stopped thread's slot is taken until it has exited, so
  // one reading at a time holds memory and each is measured from the process's size without another's.
  // An upload waits while the one before it is read (a bomb: up to a second or two; at most SLIP_READER_TIMEOUT_MS).
  const pool = createWorkerPool<Uint8Array, SlipReading>(workerModule('slip-reader-worker', import.meta.url), 1, 'packing-slip reader', {
    idleMs: 60_000,
    heapMb: 2 * maxMb,
    taskMs: timeoutMs,
    growthMb: maxMb,
    queue,
    retryAfterSeconds: 5,
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
