import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { LabelParty, LabelProvider, LabelReady, LabelRequest } from './label-provider.ts';
import { createRenderPool, inlineRenderer } from './render-pool.ts';
import { SAMPLE_MARK, renderLabel } from './render-label.ts';
import { SANDBOX_FAILURE, createSandboxLabelProvider, type SandboxMode } from './sandbox.ts';
import { mod10CheckDigit, trackingNumberFor, upsCheckDigit } from './tracking-numbers.ts';
import { renderZpl } from './render-zpl.ts';
import { decodeCode128, printZpl, zplCommands } from '../../../test/zpl-check.ts';

const party = (name: string, zip: string, state: string, country = 'United States'): LabelParty => ({
  name,
  company: '',
  street: '123 Main Street',
  street2: '',
  city: 'Springfield',
  state,
  zip,
  country,
  phone: '212 555 0100',
});

const request = (uid: string, design: string | null = null): LabelRequest => {
  const ups = uid.startsWith('ups_');
  return {
    orderId: '0b7f3c2a-5d1e-4f7a-9c3b-2e8d6a1f4b90',
    upstream: 'sandbox',
    chosen: null,
    uid,
    serviceName: uid,
    design,
    weight: 3.5,
    weightUnit: uid === 'ground_oz' ? 'oz' : 'lb',
    length: null,
    width: null,
    height: null,
    from: ups ? party('Marie Expeditrice', 'K1A 0B1', 'ON', 'Canada') : party('Jane Sender', '10001', 'NY'),
    to: ups ? party('Paul Destinataire', 'M5V 3L9', 'ON', 'Canada') : party('John Receiver', '90210', 'CA'),
    createdAt: '2026-11-21T10:00:00.000Z',
  };
};

/** Page count, page size in points and the text of page 1, read back with pdf.js. */
async function readBack(pdf: Uint8Array) {
  const doc = await getDocument({ data: new Uint8Array(pdf), verbosity: 0 }).promise;
  const page = await doc.getPage(1);
  const content = await page.getTextContent();
  const text = content.items.map((item) => ('str' in item ? item.str : '')).join(' ');
  const result = { pages: doc.numPages, view: page.view, text, compact: text.replace(/\s+/g, '') };
  await doc.destroy();
  return result;
}

describe('sandbox label PDF', () => {
  it.each(['priority', 'uspsv9', 'ground_oz', 'fedex_ground', 'ups_standard', 'ups_express_saver'])(
    '%s: one 4x6 inch page holding the tracking number, both names and the SAMPLE mark',
    async (uid) => {
      const req = request(uid, uid === 'priority' ? 'normal' : null);
      const tracking = trackingNumberFor(uid, req.orderId, req.to.zip);
      const back = await readBack(await renderLabel(req, tracking));
      expect(back.pages).toBe(1);
      expect(back.view).toEqual([0, 0, 288, 432]);
      expect(back.compact).toContain(tracking.tracking);
      expect(back.text).toContain(req.from.name);
      expect(back.text).toContain(req.to.name);
      expect(back.text).toContain(SAMPLE_MARK);
    },
  );

  it('draws the three priority templates differently', async () => {
    const texts = await Promise.all(['pitney', 'normal', 'evs'].map(async (design) => (await readBack(await renderLabel(request('priority', design)))).text));
    expect(texts[0]).toContain('PITNEY BOWES');
    expect(texts[2]).toContain('eVS');
    expect(new Set(texts).size).toBe(3);
  });

  it('prints all of Windows-1252 as typed, other scripts transliterated and no emoji', async () => {
    const req = request('priority', 'normal');
    const to = { ...req.to, name: 'Nguyễn Văn Đức 👍🏽', company: 'O’Brien Shop – €5', street: '李小龙 Núñez 1' };
    const from = { ...req.from, name: 'Zoë Ångström' };
    const back = await readBack(await renderLabel({ ...req, to, from }));
    expect(back.text).toContain('Nguyen Van Duc');
    expect(back.text).toContain('O’Brien Shop – €5');
    expect(back.text).toContain('Li Xiao Long Núñez 1');
    expect(back.text).toContain('Zoë Ångström');
    expect(back.text).not.toContain('?');
  });
});

describe('tracking numbers', () => {
  it('computes the UPS check digit of the published sample 1Z999AA10123456784', () => {
    expect(upsCheckDigit('999AA1012345678')).toBe(4);
  });

  it('computes GS1 mod-10 check digits', () => {
    expect(mod10CheckDigit('400638133393')).toBe(1); // GS1's worked example: GTIN 4006381333931
    expect(mod10CheckDigit('0000000000000')).toBe(0);
  });

  it.each([
    ['priority', /^9405599999999\d{8}\d$/],
    ['ground_oz', /^9400199999999\d{8}\d$/],
    ['fedex_ground', /^\d{15}$/],
    ['ups_express', /^1Z999AA101\d{7}\d$/],
  ])('%s numbers follow the carrier format with a valid check digit, the same for the same order', (uid, pattern) => {
    const a = trackingNumberFor(uid, 'order-1', '90210');
    expect(a.tracking).toMatch(pattern);
    expect(trackingNumberFor(uid, 'order-1', '90210').tracking).toBe(a.tracking);
    expect(trackingNumberFor(uid, 'order-2', '90210').tracking).not.toBe(a.tracking);
    const body = a.tracking.slice(0, -1);
    const check = Number(a.tracking.slice(-1));
    expect(uid.startsWith('ups_') ? upsCheckDigit(body.slice(2)) : mod10CheckDigit(body)).toBe(check);
  });

  it('puts the destination ZIP routing code in the USPS GS1-128 barcode', () => {
    const t = trackingNumberFor('priority', 'order-1', '90210-1234');
    expect(t.barcode).toEqual({ bcid: 'gs1-128', text: `(420)902101234(94)${t.tracking.slice(2)}` });
  });
});

describe('render pool', () => {
  it('renders on worker threads the same label as on the calling thread, and stops cleanly', async () => {
    const pool = createRenderPool(2);
    const requests = ['priority', 'fedex_ground', 'ups_standard', 'ground_oz'].map((uid) => request(uid, uid === 'priority' ? 'evs' : null));
    const [pooled, inline] = await Promise.all([
      Promise.all(requests.map((r) => pool.render(r))),
      Promise.all(requests.map((r) => inlineRenderer().render(r))),
    ]);
    expect(pooled.map((l) => l.tracking)).toEqual(inline.map((l) => l.tracking));
    for (const [i, label] of pooled.entries()) {
      const back = await readBack(label.pdf);
      expect(back.compact).toContain(label.tracking);
      expect(back.text).toContain(requests[i].to.name);
    }
    await pool.close();
    await expect(pool.render(requests[0])).rejects.toThrow('label renderer is closed');
  });
});

describe('the sandbox remembers what it bought', () => {
  it('answers a label it bought from its store, even from another process, and buys each at most once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-labels-'));
    const made: LabelProvider[] = [];
    try {
      const callLog = path.join(dir, 'calls.log');
      const sandbox = (mode: SandboxMode) => {
        made.push(createSandboxLabelProvider({ mode, delayMs: 60_000, renderer: inlineRenderer(), callLog, memoryDir: path.join(dir, 'bought') }));
        return made.at(-1)!;
      };
      const bought = request('priority', 'normal');
      const label = await sandbox('instant').createLabel(bought);
      // A new provider on the same directory stands for the process that takes the order after a crash.
      // The same label, rendered again (the PDF's creation time differs).
      const found = await sandbox('instant').findLabel(bought);
      expect(found).toMatchObject({ status: 'completed', tracking: (label as LabelReady).tracking });
      expect((await readBack((found as LabelReady).pdf)).text).toBe((await readBack((label as LabelReady).pdf)).text);
      expect(await sandbox('instant').findLabel({ ...bought, orderId: 'ffffffff-0000-4000-8000-000000000000' })).toBeNull();

      const later = { ...bought, orderId: '0b7f3c2a-0000-4000-8000-000000000001' };
      const pending = await sandbox('processing').createLabel(later);
      expect(pending).toMatchObject({ status: 'processing', providerRef: expect.stringMatching(/^sandbox:\d+$/) });
      expect(await sandbox('processing').findLabel(later)).toEqual(pending);

      const refused = { ...bought, orderId: '0b7f3c2a-0000-4000-8000-000000000002' };
      await expect(sandbox('fail').createLabel(refused)).rejects.toThrow(SANDBOX_FAILURE);
      expect(await sandbox('fail').findLabel(refused)).toBeNull();

      expect(fs.readFileSync(callLog, 'utf8').trim().split('\n')).toEqual([
        `create ${bought.orderId}`,
        `made ${bought.orderId}`,
        `found ${bought.orderId}`,
        `create ${later.orderId}`,
        `found ${later.orderId}`,
        `create ${refused.orderId}`,
      ]);
    } finally {
      for (const provider of made) await provider.close?.();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sandbox label ZPL', () => {
  it.each(['priority', 'ground_oz', 'fedex_ground', 'ups_standard'])(
    '%s: a 4x6 203 dpi ZPL II label that zebrash prints, its tracking barcode decoding',
    async (uid) => {
      const req = request(uid, uid === 'priority' ? 'normal' : null);
      req.to = { ...req.to, name: 'José Núñez 李小龙' };
      const tracking = trackingNumberFor(uid, req.orderId, req.to.zip);
      const zpl = renderZpl(req, tracking);
      const { labels } = zplCommands(zpl);
      expect(labels).toHaveLength(1);
      const commands = labels[0];
      expect(commands[0]).toBe('XA');
      expect(commands.at(-1)).toBe('XZ');
      expect(commands).toContain('PW812');
      expect(commands).toContain('LL1218');
      expect(commands.some((c) => c.startsWith('BCN,'))).toBe(true);
      expect(zpl).toContain(SAMPLE_MARK);
      expect(zpl).toContain('José Núñez Li Xiao Long');
      const [printed] = await printZpl(zpl);
      expect([printed.width, printed.height]).toEqual([813, 1220]);
      const decoded = decodeCode128(printed);
      // GS1-128 reads as its element strings without the parentheses: (420)ZIP(94)... -> 420ZIP94...
      expect(decoded.replace(/\x1d/g, '')).toBe(tracking.barcode.text.replace(/[()]/g, ''));
      expect(decoded).toContain(tracking.tracking.slice(2));
    },
  );
});
