import { createWorkerPool } from '../../lib/worker-pool.ts';
import type { SlipsRead } from './packing-slips.ts';

/** What reading a packing-slip PDF found: its slips, or why the file cannot be read at all. */
export type SlipReading =
  | ({ problem: null; pages: number } & SlipsRead)
  | { problem: 'damaged' | 'encrypted' }
  | { problem: 'too-many-pages'; pages: number };

export type SlipReader = { read(pdf: Uint8Array): Promise<SlipReading>; close(): Promise<void> };

/**
 * Reads packing-slip PDFs on a thread of its own: a 500-page PDF is about a second of CPU, which
 * would otherwise hold up every other request of the web process. Uploads wait their turn.
 */
export function createSlipReader(): SlipReader {
  // Most hours see no upload: the thread (about 100 MB with pdf.js) stops after a minute without one.
  const pool = createWorkerPool<Uint8Array, SlipReading>(new URL('./slip-reader-entry.mjs', import.meta.url), 1, 'packing-slip reader', { idleMs: 60_000 });
  return { read: (pdf) => pool.run(pdf), close: () => pool.close() };
}
