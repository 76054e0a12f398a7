// Issue 45: PDF bombs (326 kB, one stream inflating to 320 MiB of zeros) sent to the built shop, as `npm start` runs it
// (--max-old-space-size=256), several at once and one right after another's 422. Each upload is answered 4xx, or 503
// with Retry-After when the reader's queue is full; the process lives, stays under SLIP_READER_MAX_MB above its idle
// size (from /proc/<pid>/status), and reads an ordinary packing slip afterwards.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AMAZON_CSV_PATH } from '@portal/contract';
import { buildServerIfNeeded } from './built-tree.ts';
import { slipSender } from './sample-addresses.ts';
import { testDbKind } from './harness.ts';
import { processGroup, type BuiltProcess } from './processes.ts';
import { ordinarySlipPages, packingSlipPdf, zeroBombPdf } from './slip-fixtures.ts';
import { newCustomer } from './customers.ts';

/** The default of SLIP_READER_MAX_MB. */
const MAX_MB = 300;
const FROM = { ...slipSender(), weight: '2' };

/** The process's resident size now and at its peak since the peak was last reset (MB). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (key: string) => Number(status.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm'))![1]) / 1024;
  return { rss: mb('VmRSS'), peak: mb('VmHWM') };
}
/** Makes the process's peak (VmHWM) its present size. */
const resetPeak = (pid: number) => fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');

describe.runIf(testDbKind === 'sqlite' && process.platform === 'linux')('PDF bombs to the built shop', () => {
  const group = processGroup();
  let dataDir = '';
  let shop: BuiltProcess;
  let token = '';
  let bomb: Buffer;
  let idleMb = 0;

  beforeAll(async () => {
    // The server alone: the web app is not served here.
    buildServerIfNeeded();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-slip-bombs-'));
    shop = await group.startBuilt('server', {
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      REDIS_URL: '',
      WEB_DIST: path.join(dataDir, 'no-web'),
      LABEL_RENDER_THREADS: '0',
      SMTP_URL: '',
      ALTCHA_MAX_NUMBER: '1000',
      RATE_LIMIT_MAX: '1000',
      LOG_LEVEL: 'warn',
      SLIP_READER_MAX_MB: String(MAX_MB),
    });
    ({ token } = await newCustomer(shop.url));
    bomb = await zeroBombPdf();
    idleMb = memoryOf(shop.pid).rss;
  }, 180_000);
  afterAll(async () => {
    await group.stopAll();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** The answer to an upload of `pdf`: its status, Retry-After and body. */
  async function upload(pdf: Uint8Array) {
    const form = new FormData();
    for (const [name, value] of Object.entries(FROM)) form.append(name, value);
    form.append('pdf', new Blob([pdf as BlobPart], { type: 'application/pdf' }), 'slips.pdf');
    const response = await fetch(`${shop.url}/api/v1${AMAZON_CSV_PATH}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.text() };
  }

  /** Sends `count` bombs at once: every answer is a 422, or a 503 with Retry-After; the process's peak growth over idle (MB). */
  async function bombsAtOnce(count: number): Promise<{ statuses: number[]; growthMb: number }> {
    resetPeak(shop.pid);
    const answers = await Promise.all(Array.from({ length: count }, () => upload(bomb)));
    for (const answer of answers) {
      // Read whole, it would be a 400 (no text): a 422 says it was stopped at the limit.
      expect([422, 503], answer.body).toContain(answer.status);
      if (answer.status === 503) expect(Number(answer.retryAfter), answer.body).toBeGreaterThan(0);
    }
    expect((await fetch(`${shop.url}/healthz`)).ok).toBe(true);
    const { peak } = memoryOf(shop.pid);
    return { statuses: answers.map((a) => a.status), growthMb: peak - idleMb };
  }

  it('is about 326 kB inflating to 320 MiB', () => {
    expect(bomb.length).toBeGreaterThan(300 * 1024);
    expect(bomb.length).toBeLessThan(350 * 1024);
  });

  for (const count of [2, 4, 8]) {
    it(`${count} at once are each refused (422, or 503 with Retry-After), the shop staying under SLIP_READER_MAX_MB above its idle size`, async () => {
      const { statuses, growthMb } = await bombsAtOnce(count);
      console.log(`${count} bombs: ${statuses.join(' ')}; idle ${idleMb.toFixed(0)} MB, peak +${growthMb.toFixed(0)} MB`);
      expect(statuses).toContain(422);
      expect(growthMb).toBeLessThan(MAX_MB);
    }, 120_000);
  }

  it('one right after another’s 422 is refused too', async () => {
    resetPeak(shop.pid);
    for (let i = 0; i < 3; i++) expect((await upload(bomb)).status).toBe(422);
    const growthMb = memoryOf(shop.pid).peak - idleMb;
    console.log(`3 bombs in a row: peak +${growthMb.toFixed(0)} MB`);
    expect(growthMb).toBeLessThan(MAX_MB);
  }, 120_000);

  it('an ordinary packing slip is read while bombs are refused (on the thread it started), and after them', async () => {
    const slips = await packingSlipPdf(ordinarySlipPages(3));
    resetPeak(shop.pid);
    const [ordinary, ...bombs] = await Promise.all([upload(slips), upload(bomb), upload(bomb)]);
    // Sent first, it is read first; the bombs wait their turn and are stopped on the thread it started.
    expect(ordinary.status, ordinary.body).toBe(200);
    expect(ordinary.body.trim().split(/\r?\n/)).toHaveLength(4);
    for (const answer of bombs) expect([422, 503]).toContain(answer.status);
    const after = await upload(slips);
    expect(after.status, after.body).toBe(200);
    const growthMb = memoryOf(shop.pid).peak - idleMb;
    console.log(`a slip, then 2 bombs on its thread, then a slip: peak +${growthMb.toFixed(0)} MB`);
    expect(growthMb).toBeLessThan(MAX_MB);
  }, 120_000);
});
