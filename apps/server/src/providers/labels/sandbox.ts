import fs from 'node:fs';
import path from 'node:path';
import {
  LabelProviderError,
  uniqueServices,
  type LabelPending,
  type LabelProvider,
  type LabelReady,
  type QuoteAnswer,
  type QuoteRequest,
} from './label-provider.ts';
import type { LabelRenderer } from './render-pool.ts';
import { renderZpl } from './render-zpl.ts';
import { renderScanForm } from './render-scan-form.ts';
import { scanFormName } from '@portal/contract';

export type SandboxMode = 'instant' | 'processing' | 'fail';

export const SANDBOX_FAILURE = 'the sandbox label provider is set to fail (LABEL_SANDBOX_MODE=fail)';

/** What the sandbox remembers of a label it "bought": made at once, or this reference to ask again with. */
const MADE = 'made';

/**
 * The labels the sandbox "bought", by order id, as an upstream remembers its purchases: a line `<order id> <made or
 * reference>` appended to one of 16 files of `dir` (by the id's first character, so a lookup reads a sixteenth).
 * Each file is kept open for appending: a write of a short line, whole even beside other processes' writes, and it
 * outlives a killed process (about 20 us a label, a third of opening the file each time). Without a directory
 * (tests that build the sandbox themselves) it remembers in this process only.
 */
function purchaseMemory(dir: string | undefined) {
  if (!dir) {
    const kept = new Map<string, string>();
    return {
      remember: (orderId: string, answer: string) => void kept.set(orderId, answer),
      recall: async (orderId: string) => kept.get(orderId) ?? null,
      close() {},
    };
  }
  const fileOf = (orderId: string) => path.join(dir, /^[0-9a-f]/i.test(orderId) ? orderId[0].toLowerCase() : '_');
  const open = new Map<string, number>();
  return {
    remember(orderId: string, answer: string) {
      const file = fileOf(orderId);
      let fd = open.get(file);
      if (fd === undefined) {
        // Made on the first purchase, not at start: a process that never buys leaves DATA_DIR as it was.
        fs.mkdirSync(dir, { recursive: true });
        open.set(file, (fd = fs.openSync(file, 'a')));
      }
      fs.writeSync(fd, `${orderId} ${answer}\n`);
    },
    async recall(orderId: string): Promise<string | null> {
      const text = await fs.promises.readFile(fileOf(orderId), 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return '';
        throw error;
      });
      const at = `\n${text}`.lastIndexOf(`\n${orderId} `);
      if (at < 0) return null;
      const end = text.indexOf('\n', at);
      return text.slice(at + orderId.length + 1, end < 0 ? undefined : end);
    },
    close() {
      for (const fd of open.values()) fs.closeSync(fd);
      open.clear();
    },
  };
}

/**
 * The default provider: renders SAMPLE labels locally. Modes exercise the other paths:
 * 'processing' answers later (the label is ready `delayMs` after the order), 'fail' refuses every label.
 * It remembers what it "bought" in `memoryDir` (DATA_DIR/sandbox-labels), so findLabel answers after a crash as an
 * upstream would, and a label is bought at most once.
 */
export type SandboxLabelProvider = LabelProvider & {
  /** Marks a label scanned by the carrier, as a test does: its refund is rejected from then on. */
  markScanned(orderId: string): void;
};

/** Canadian postal districts by their first letter, east to west, so the distance between two of them is a zone. */
const CANADA_DISTRICTS = 'ABCEGHJKLMNPRSTVXY';

/** How far apart two ZIP codes are, as a zone from 1 (near) to 8 (across the country): US ZIPs by their first 3 digits, Canadian codes by their district. */
export function zoneBetween(fromZip: string, toZip: string): number {
  const us = (zip: string) => Number(zip.slice(0, 3));
  if (/^\d{3}/.test(fromZip) && /^\d{3}/.test(toZip)) return 1 + Math.min(7, Math.floor(Math.abs(us(fromZip) - us(toZip)) / 125));
  const district = (zip: string) => Math.max(0, CANADA_DISTRICTS.indexOf(zip[0]?.toUpperCase() ?? ''));
  return 1 + Math.min(7, Math.floor((Math.abs(district(fromZip) - district(toZip)) * 8) / CANADA_DISTRICTS.length));
}

/** Business days in transit of each type by zone: deterministic, so tests and demos see the services differ. */
const SANDBOX_DAYS: Record<string, (zone: number) => number> = {
  priority: (zone) => 1 + Number(zone >= 3) + Number(zone >= 6),
  uspsv9: (zone) => 1 + Number(zone >= 3) + Number(zone >= 6),
  ground_oz: (zone) => 2 + Math.floor(zone / 2),
  fedex_ground: (zone) => 1 + Math.floor(((zone - 1) * 4) / 7),
  ups_standard: (zone) => 1 + Math.floor(((zone - 1) * 6) / 7),
  ups_expedited: (zone) => 2 + Number(zone >= 5),
  ups_express_saver: () => 1,
  ups_express: () => 1,
  ups_express_early: () => 1,
};

/**
 * The sandbox's rates: days by SANDBOX_DAYS, and a cost that is a share of our price growing with the zone (55 % near,
 * 83 % across), so a sandbox shop sees margins without ever selling below its cost. Nothing is asked of anyone.
 */
export function sandboxQuote(request: QuoteRequest): QuoteAnswer {
  const zone = zoneBetween(request.from.zip, request.to.zip);
  return {
    shipmentRef: null,
    rates: request.wanted.map((wanted) => ({
      uid: wanted.uid,
      status: 'rated',
      costCents: Math.round(wanted.priceCents * (0.55 + 0.04 * (zone - 1))),
      days: (SANDBOX_DAYS[wanted.uid] ?? ((z: number) => 1 + Math.floor(z / 2)))(zone),
      rateId: null,
    })),
    offered: uniqueServices(request.wanted.flatMap((w) => (w.upstream ? [w.upstream] : []))),
  };
}

export const SANDBOX_SCANNED = 'the carrier scanned this label (sandbox)';

export function createSandboxLabelProvider(options: {
  mode: SandboxMode;
  delayMs: number;
  /** How long after it is asked a refund is approved (LABEL_SANDBOX_REFUND_DELAY_MS). */
  refundDelayMs?: number;
  renderer: LabelRenderer;
  callLog?: string;
  memoryDir?: string;
}): SandboxLabelProvider {
  // A diagnostic: one line per label bought, made and found bought, appended by every process alike, so a test can count them across processes.
  const logCall = (what: 'create' | 'made' | 'found', orderId: string) => {
    if (options.callLog) fs.appendFileSync(options.callLog, `${what} ${orderId}\n`);
  };
  const memory = purchaseMemory(options.memoryDir);
  const render = async (request: Parameters<LabelRenderer['render']>[0]): Promise<LabelReady> => ({
    status: 'completed',
    ...(await options.renderer.render(request)),
  });
  return {
    name: 'sandbox',
    freeLabels: true,
    quote: async (request) => sandboxQuote(request),
    async createLabel(request) {
      if (options.mode === 'fail') {
        logCall('create', request.orderId);
        throw new LabelProviderError(SANDBOX_FAILURE);
      }
      // The ready time travels in the reference, so a label made later needs nothing but its purchase remembered.
      const answer: LabelReady | LabelPending =
        options.mode === 'processing' ? { status: 'processing', providerRef: `sandbox:${Date.now() + options.delayMs}` } : await render(request);
      // The purchase: remembered, then logged, with nothing in between that could wait.
      memory.remember(request.orderId, answer.status === 'processing' ? answer.providerRef : MADE);
      logCall('create', request.orderId);
      if (answer.status === 'completed') logCall('made', request.orderId);
      return answer;
    },
    async findLabel(request) {
      const bought = await memory.recall(request.orderId);
      if (bought === null) return null;
      logCall('found', request.orderId);
      // The same request renders the same label (its tracking number is made from the order's id).
      return bought === MADE ? render(request) : { status: 'processing', providerRef: bought };
    },
    async checkLabel(request, providerRef) {
      const readyAt = Number(providerRef.split(':')[1]);
      if (!Number.isFinite(readyAt)) return { status: 'failed', message: 'the sandbox does not know this label' };
      if (Date.now() < readyAt) return { status: 'processing', providerRef };
      const label = await render(request);
      logCall('made', request.orderId);
      return label;
    },
    // Text made from the order alone, as cheap as the PDF's layout without its drawing: made on the calling thread.
    zplLabel: async (request) => Buffer.from(renderZpl(request)),
    // A refund is remembered as the time it is approved, beside the purchase; a scan as a line of its own.
    async requestRefund(request) {
      if (await memory.recall(`scan:${request.orderId}`)) return { status: 'rejected', reason: SANDBOX_SCANNED };
      const delayMs = options.refundDelayMs ?? 0;
      memory.remember(`refund:${request.orderId}`, String(Date.now() + delayMs));
      return delayMs > 0 ? { status: 'submitted', checkInMs: delayMs } : { status: 'refunded' };
    },
    async checkRefund(request) {
      const asked = await memory.recall(`refund:${request.orderId}`);
      if (asked === null) return { status: 'none' };
      if (await memory.recall(`scan:${request.orderId}`)) return { status: 'rejected', reason: SANDBOX_SCANNED };
      const readyAt = Number(asked);
      return Date.now() < readyAt ? { status: 'submitted', checkInMs: readyAt - Date.now() } : { status: 'refunded' };
    },
    // A SAMPLE form made here at once: the same request always makes the same file, so a retry needs no memory.
    async createScanForm(request) {
      return { status: 'created', ref: `sandbox-form:${request.formId}`, pdf: await renderScanForm(request, scanFormName(request.formId)) };
    },
    async findScanForm(request, ref) {
      return ref ? { status: 'created', ref, pdf: await renderScanForm(request, scanFormName(request.formId)) } : null;
    },
    // Pickups: USPS's is free (as with a SCAN form), the others' a flat fee; booked and cancelled at once, by the ref.
    async ratePickup(request) {
      return { ref: `sandbox-pickup:${request.pickupId}`, rates: [{ service: 'Sandbox pickup', feeCents: request.carrier === 'USPS' ? 0 : 450 }] };
    },
    async buyPickup(ref) {
      memory.remember(ref, 'booked');
      return { status: 'booked', confirmation: `SANDBOX-${ref.slice(-8).toUpperCase()}` };
    },
    async findPickup(ref) {
      const state = await memory.recall(ref);
      return state === 'booked'
        ? { status: 'booked', confirmation: `SANDBOX-${ref.slice(-8).toUpperCase()}` }
        : state === 'cancelled'
          ? { status: 'cancelled' }
          : { status: 'unbooked' };
    },
    async cancelPickup(ref) {
      memory.remember(ref, 'cancelled');
      return { status: 'cancelled' };
    },
    markScanned(orderId) {
      memory.remember(`scan:${orderId}`, 'scanned');
    },
    async close() {
      memory.close();
    },
  };
}
