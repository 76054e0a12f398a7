import type { FastifyBaseLogger } from 'fastify';
import { NOT_AVAILABLE_RIGHT_NOW } from '@portal/contract';
import {
  LabelProviderError,
  type ChosenRate,
  type LabelFailed,
  type LabelPending,
  type LabelProvider,
  type LabelReady,
  type LabelRequest,
  type NoRate,
  type QuoteAnswer,
  type QuoteRequest,
  type UpstreamRate,
  type UpstreamService,
} from '../../providers/labels/label-provider.ts';
import type { UpstreamHealth, UpstreamHealthView } from '../../providers/labels/upstream-health.ts';
import { renderZpl } from '../../providers/labels/render-zpl.ts';
import { processingLimitMessage } from '../../providers/labels/upstream-call.ts';

/** A rate above what the shop may pay is refused in the customer's words: nothing about costs reaches them (the audit row has it). */
export const COST_ABOVE_PRICE = NOT_AVAILABLE_RIGHT_NOW;
export const UPSTREAM_NOT_CONFIGURED = (name: string) => `the upstream this label was bought at (${name}) is not configured`;

/** Where a label is bought: the cheapest rate among the healthy upstreams, or the first healthy one in the list. */
export type UpstreamPolicy = 'cheapest' | 'preference';

/** Where the order keeps which upstream, shipment and rate it buys (orders.provider, upstream_ref, upstream_rate_id). */
export type UpstreamChoiceStore = {
  /**
   * Records what the order buys, only while it still holds `from` (null: nothing chosen yet): false when another
   * process recorded something else first. `chosen` null lets go of a choice known to have bought nothing.
   */
  choose(orderId: string, upstream: string, chosen: ChosenRate | null, from: ChosenRate | null): Promise<boolean>;
  recordPurchase(orderId: string, bought: NonNullable<LabelReady['bought']>): Promise<unknown>;
  /**
   * Marks the order's purchase asked now, unless another was asked within the settle window (it may still land upstream,
   * which keeps no idempotency key for us): false then, and nothing is bought until the window is over.
   */
  askPurchase(orderId: string, upstream: string): Promise<boolean>;
};

/** Retries of an order no upstream could price now back off 1 s, 2 s... at most a minute. */
const retryIn = (tries: number) => Math.min(60_000, 1000 * 2 ** Math.max(0, tries - 1));
const OWN_RETRY = /^upstreams:retry:(\d+)$/;
/** An adapter's own back-off reference (`easypost:retry:3`): the router asks what was sold before buying again. */
const ADAPTER_RETRY = /^[a-z]+:retry:\d+$/;
const ASKED = 'upstreams:asked';

/**
 * The shop's upstreams (LABEL_UPSTREAMS, in order of preference) as one label provider. It decides where each label is
 * bought: every healthy upstream that maps the type is quoted at once, with a deadline (policy 'cheapest'), or only the
 * first (policy 'preference'); the rate chosen must be under the cost ceiling (its price times LABEL_MAX_COST_RATIO,
 * else the operator's audit row and a refusal); it is recorded on the order before it is bought, so after a crash or a
 * lost answer only that upstream is asked, and the order moves to another only once the first is known not to have
 * sold it (a refused connection, or a retrieve that finds no postage while the first is unhealthy). Refunds, ZPL and
 * webhooks go to the upstream the order names.
 */
export function createUpstreamList(deps: {
  upstreams: LabelProvider[];
  health: Map<string, UpstreamHealth>;
  policy: UpstreamPolicy;
  quoteDeadlineMs: number;
  /** How long a purchase asked may still land upstream (twice the upstream timeout): no second purchase is asked before. */
  settleMs: (upstream: string) => number;
  /** A purchase waiting longer than this for the cheapest upstream's purchase rate goes to the next cheapest (UPSTREAM_SPILL_MS). */
  spillMs: number;
  /** What each label type is bought as, by upstream name (the catalog's mapping). */
  mappingOf: (uid: string) => Promise<Record<string, UpstreamService>>;
  store: UpstreamChoiceStore;
  maxCostRatio: number;
  processingLimitMinutes: number;
  /** Told of a rate refused for its cost (the operator's audit row). */
  onCostRefused?: (request: LabelRequest, costCents: number, upstream: string) => Promise<void>;
  log: FastifyBaseLogger;
}) {
  const { upstreams, health, policy, store, log } = deps;
  const byName = new Map(upstreams.map((u) => [u.name, u]));
  const healthOf = (u: LabelProvider) => health.get(u.name);
  const healthy = (u: LabelProvider) => healthOf(u)?.healthy ?? true;
  const free = upstreams.every((u) => u.freeLabels);
  const single = upstreams.length === 1 ? upstreams[0] : null;

  /** The upstream an order names; a label bought at one the shop no longer lists cannot be asked about. */
  function upstreamOf(request: LabelRequest): LabelProvider {
    const upstream = byName.get(request.upstream);
    if (!upstream) throw new Error(UPSTREAM_NOT_CONFIGURED(request.upstream));
    return upstream;
  }

  const withDeadline = <T>(work: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${deps.quoteDeadlineMs} ms`)), deps.quoteDeadlineMs);
    });
    return Promise.race([work, late]).finally(() => clearTimeout(timer));
  };

  /**
   * Each wanted type priced at every healthy upstream that maps it (the sandbox makes every type: it needs no map), in
   * parallel: per type the cheapest rate (or, by preference, the first upstream's), tagged with its upstream and
   * shipment. A type no upstream rated is 'unavailable' when an upstream could not answer for it, else 'route'.
   * Throws (the first error) only when no upstream answered.
   */
  async function quote(request: QuoteRequest, skip: ReadonlySet<string> = new Set(), forPurchase = false): Promise<QuoteAnswer> {
    const mappings = new Map(await Promise.all(request.wanted.map(async (w) => [w.uid, await deps.mappingOf(w.uid)] as const)));
    let asked = upstreams.filter(
      (u) =>
        !skip.has(u.name) &&
        // An insured label is bought only where the insurance is bought with it.
        !(request.insuredCents && u.insures === false) &&
        request.wanted.some((w) => !u.mapsServices || mappings.get(w.uid)![u.name]),
    );
    // An unhealthy upstream is left out; once its window is over one call at a time probes it (allow() takes the probe).
    // With every upstream unhealthy, each is asked anyway: the answer is the probe that may close its breaker.
    if (asked.some(healthy)) asked = asked.filter((u) => healthOf(u)?.allow() ?? true);
    if (policy === 'preference') asked = asked.slice(0, 1);
    if (asked.length === 0) return { shipmentRef: null, rates: request.wanted.map((w) => ({ uid: w.uid, status: 'route' })), offered: [] };
    const answers = await Promise.all(
      asked.map(async (u) => {
        const wanted = request.wanted
          .filter((w) => !u.mapsServices || mappings.get(w.uid)![u.name])
          .map((w) => ({ ...w, upstream: mappings.get(w.uid)![u.name] ?? null }));
        try {
          return { upstream: u.name, answer: await withDeadline(u.quote({ ...request, wanted })), wanted };
        } catch (error) {
          return { upstream: u.name, error, wanted };
        }
      }),
    );
    const answered = answers.filter((a) => a.answer);
    if (answered.length === 0) throw answers[0].error;
    for (const a of answers)
      if (a.error && !(a.error instanceof LabelProviderError)) log.warn({ err: a.error, upstream: a.upstream }, 'an upstream could not price a package');
    const rates = request.wanted.map(({ uid }): UpstreamRate | NoRate => {
      const rated: UpstreamRate[] = [];
      let unavailable: NoRate | null = null;
      for (const a of answers) {
        if (!a.wanted.some((w) => w.uid === uid)) continue;
        const rate = a.answer?.rates.find((r) => r.uid === uid);
        if (!rate || rate.status === 'unavailable') unavailable ??= rate && rate.status === 'unavailable' ? rate : { uid, status: 'unavailable' };
        else if (rate.status === 'rated') rated.push({ ...rate, upstream: a.upstream, shipmentRef: a.answer!.shipmentRef });
      }
      return (policy === 'cheapest' ? cheapest(rated, forPurchase) : rated[0]) ?? unavailable ?? { uid, status: 'route' };
    });
    return {
      // A quote spans upstreams: each rate names its own shipment.
      shipmentRef: answered.length === 1 ? answered[0].answer!.shipmentRef : null,
      rates,
      offered: answered.flatMap((a) => a.answer!.offered.map((o) => ({ ...o, upstream: a.upstream }))),
    };
  }

  /**
   * The cheapest rate (the first upstream's of equal ones). For a purchase, an upstream whose purchase rate is saturated
   * (a purchase asked now would wait over spillMs for its slot) gives way to the next cheapest that is not, so a bulk
   * order buys at both upstreams' rates together; when every one is saturated, the one that frees first.
   */
  function cheapest(rated: UpstreamRate[], forPurchase: boolean): UpstreamRate | undefined {
    const byCost = [...rated].sort((a, b) => a.costCents - b.costCents);
    if (!forPurchase || byCost.length < 2) return byCost[0];
    const waitOf = (rate: UpstreamRate) => byName.get(rate.upstream!)?.purchaseWaitMs?.() ?? 0;
    return byCost.find((rate) => waitOf(rate) <= deps.spillMs) ?? [...byCost].sort((a, b) => waitOf(a) - waitOf(b))[0];
  }

  const pendingRetry = (providerRef: string | undefined): LabelPending => {
    const tries = Number(OWN_RETRY.exec(providerRef ?? '')?.[1] ?? 0) + 1;
    return { status: 'processing', providerRef: `upstreams:retry:${tries}`, retryInMs: retryIn(tries) };
  };

  /**
   * Chooses where an order with no recorded choice is bought, records it, and buys it. `skip`: upstreams known not to
   * have sold it that refused this very attempt.
   */
  async function chooseAndBuy(request: LabelRequest, providerRef?: string, skip: ReadonlySet<string> = new Set()): Promise<LabelReady | LabelPending> {
    let answer: QuoteAnswer;
    try {
      answer = await quote(
        {
          quoteId: request.orderId,
          wanted: [{ uid: request.uid, upstream: null, priceCents: request.priceCents ?? 0 }],
          from: request.from,
          to: request.to,
          weight: request.weight,
          weightUnit: request.weightUnit,
          length: request.length,
          width: request.width,
          height: request.height,
          shipDate: request.shipDate ?? request.createdAt.slice(0, 10),
          reference: request.reference,
          reference2: request.reference2,
          isReturn: request.isReturn,
          insuredCents: request.insuredCents,
        },
        skip,
        true,
      );
    } catch (error) {
      if (error instanceof LabelProviderError) throw error;
      return pendingRetry(providerRef);
    }
    const rate = answer.rates[0];
    if (rate.status !== 'rated') {
      if (rate.status === 'route') {
        // Named as the first upstream that maps the type names it (the service the operator chose).
        const mapping = await deps.mappingOf(request.uid);
        const mapped = upstreams.map((u) => mapping[u.name]).find(Boolean);
        throw new LabelProviderError(`${mapped ? `${mapped.carrier} ${mapped.service}` : request.serviceName} is not available for this shipment`);
      }
      return pendingRetry(providerRef);
    }
    const upstream = byName.get(rate.upstream!)!;
    if (!upstream.freeLabels && request.priceCents !== undefined && rate.costCents > request.priceCents * deps.maxCostRatio) {
      await deps.onCostRefused?.(request, rate.costCents, upstream.name);
      throw new LabelProviderError(COST_ABOVE_PRICE);
    }
    const chosen: ChosenRate = { shipmentRef: rate.shipmentRef ?? upstream.name, rateId: rate.rateId };
    // Recorded before it is bought: whatever happens next, only this upstream is asked about the order. The sandbox
    // remembers its own labels (and a sandbox order is written only once its label is made).
    if (upstream.freeLabels) await store.choose(request.orderId, upstream.name, chosen, null);
    else if (!(await store.choose(request.orderId, upstream.name, chosen, null))) return { status: 'processing', providerRef: 'upstreams:chosen-elsewhere' };
    return buyAt(upstream, { ...request, upstream: upstream.name, chosen }, skip);
  }

  /**
   * Buys the order's chosen rate at its upstream, once its purchase is marked asked (a purchase asked within the settle
   * window by another take, which may still land, holds this one back); one whose ask never reached the upstream is let
   * go and chosen again elsewhere.
   */
  async function buyAt(upstream: LabelProvider, request: LabelRequest, skip: ReadonlySet<string>): Promise<LabelReady | LabelPending> {
    if (!upstream.freeLabels && !(await store.askPurchase(request.orderId, upstream.name)))
      return { status: 'processing', providerRef: ASKED, retryInMs: deps.settleMs(upstream.name) };
    const result = await upstream.createLabel(request);
    if (result.status === 'completed') return recorded(request, result);
    if (result.notSold && !upstream.freeLabels && (await store.choose(request.orderId, upstream.name, null, request.chosen))) {
      const tried = new Set(skip).add(upstream.name);
      if (upstreams.some((u) => !tried.has(u.name))) return chooseAndBuy({ ...request, chosen: null }, undefined, tried);
    }
    return result;
  }

  /**
   * A later take of an order whose upstream was chosen: that upstream is asked what it sold first (a read, how the shop
   * learns); only when it sold nothing is the order bought, there, or elsewhere when that upstream is unhealthy.
   */
  async function findThenBuy(upstream: LabelProvider, request: LabelRequest, providerRef: string): Promise<LabelReady | LabelPending | LabelFailed> {
    const found = await upstream.findLabel(request).catch(() => ({ status: 'processing', providerRef, retryInMs: retryIn(1) }) as LabelPending);
    if (found?.status === 'completed') return recorded(request, found);
    if (found) return found;
    if (Date.now() - Date.parse(request.createdAt) > deps.processingLimitMinutes * 60_000)
      return { status: 'failed', message: processingLimitMessage(deps.processingLimitMinutes) };
    if (!healthy(upstream) && (await store.choose(request.orderId, upstream.name, null, request.chosen)))
      return settle(() => chooseAndBuy({ ...request, chosen: null }, undefined, new Set([upstream.name])));
    return settle(() => provider.createLabel(request));
  }

  /** A label an upstream sold, with what it cost kept on the order (made whether that write works or not: the sweep has the label). */
  async function recorded(request: LabelRequest, label: LabelReady): Promise<LabelReady> {
    if (label.bought)
      await store
        .recordPurchase(request.orderId, label.bought)
        .catch((error) => log.warn({ err: error, orderId: request.orderId }, 'the purchase cost could not be recorded'));
    return label;
  }

  /** A settled pending answer as checkLabel answers it: a refusal fails the order. */
  async function settle(work: () => Promise<LabelReady | LabelPending>): Promise<LabelReady | LabelPending | LabelFailed> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof LabelProviderError) return { status: 'failed', message: error.message };
      throw error;
    }
  }

  const provider: LabelProvider & {
    /** The upstreams' names, in order of preference. */
    readonly names: string[];
    named(name: string): LabelProvider | undefined;
    healthViews(): UpstreamHealthView[];
  } = {
    name: upstreams[0].name,
    names: upstreams.map((u) => u.name),
    freeLabels: free,
    concurrency: upstreams.some((u) => u.concurrency) ? upstreams.reduce((sum, u) => sum + (u.concurrency ?? 0), 0) : undefined,
    named: (name) => byName.get(name),
    healthViews: () => upstreams.flatMap((u) => (health.get(u.name) ? [health.get(u.name)!.view()] : [])),
    quote: (request) => quote(request),
    async createLabel(request) {
      // One free upstream (the sandbox) has nothing to choose.
      if (single?.freeLabels) return single.createLabel(request);
      if (!request.chosen) return chooseAndBuy(request);
      const upstream = upstreamOf(request);
      // A choice made before rates were kept per order (no rate id): nothing was bought on it (the caller asked
      // findLabel first on a later take), so the order is chosen again.
      if (upstream.mapsServices && !request.chosen.rateId) {
        if (await store.choose(request.orderId, upstream.name, null, request.chosen)) return chooseAndBuy({ ...request, chosen: null });
        return { status: 'processing', providerRef: 'upstreams:chosen-elsewhere' };
      }
      return buyAt(upstream, request, new Set());
    },
    async findLabel(request) {
      const upstream = byName.get(request.upstream);
      // Nothing chosen: nothing can have been bought upstream; the sandbox remembers its own by order id.
      if (!upstream || (!request.chosen && !upstream.freeLabels)) return null;
      const found = await upstream.findLabel(request);
      return found?.status === 'completed' ? recorded(request, found) : found;
    },
    async checkLabel(request, providerRef) {
      const own = OWN_RETRY.test(providerRef) || providerRef === 'upstreams:chosen-elsewhere' || providerRef === ASKED;
      const named = byName.get(request.upstream);
      if (named?.freeLabels && !own) return named.checkLabel(request, providerRef);
      if (!request.chosen) {
        if (Date.now() - Date.parse(request.createdAt) > deps.processingLimitMinutes * 60_000)
          return { status: 'failed', message: processingLimitMessage(deps.processingLimitMinutes) };
        return settle(() => chooseAndBuy(request, own ? providerRef : undefined));
      }
      const upstream = upstreamOf(request);
      // A retry (ours or the adapter's back-off), an unknown end, or an unhealthy upstream: what was sold is asked first.
      if (own || !providerRef || ADAPTER_RETRY.test(providerRef) || (!upstream.freeLabels && !healthy(upstream)))
        return findThenBuy(upstream, request, providerRef);
      // The upstream's own purchase under way (Shippo's queued transaction): it decides it.
      const answer = await upstream.checkLabel(request, providerRef);
      return answer.status === 'completed' ? recorded(request, answer) : answer;
    },
    async zplLabel(request) {
      const upstream = byName.get(request.upstream);
      // A sandbox label of a shop that has since gone live is still rendered here.
      if (!upstream && request.upstream === 'sandbox') return Buffer.from(renderZpl(request));
      if (!upstream?.zplLabel) throw new LabelProviderError('this upstream does not convert labels to ZPL');
      return upstream.zplLabel(request);
    },
    async verifyAddress(party) {
      const upstream = upstreams.find((u) => u.verifyAddress && healthy(u)) ?? upstreams.find((u) => u.verifyAddress);
      if (!upstream) return { verified: true, address: party };
      return upstream.verifyAddress!(party);
    },
    async requestRefund(request) {
      const upstream = upstreamOf(request);
      if (!upstream.requestRefund) return { status: 'rejected', reason: 'this upstream does not refund labels' };
      return upstream.requestRefund(request);
    },
    async checkRefund(request) {
      const upstream = upstreamOf(request);
      return upstream.checkRefund ? upstream.checkRefund(request) : { status: 'none' };
    },
    async close() {
      await Promise.all(upstreams.map((u) => u.close?.()));
    },
  };
  // An upstream list whose every member refunds in the console (none asks upstream) keeps that.
  if (upstreams.every((u) => !u.requestRefund)) delete (provider as Partial<LabelProvider>).requestRefund;
  if (upstreams.every((u) => !u.verifyAddress)) delete (provider as Partial<LabelProvider>).verifyAddress;
  if (upstreams.every((u) => !u.zplLabel) && !upstreams.some((u) => u.name === 'sandbox')) delete (provider as Partial<LabelProvider>).zplLabel;
  return provider;
}

export type UpstreamList = ReturnType<typeof createUpstreamList>;
