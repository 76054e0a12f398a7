// The fake EasyPost and the fake Shippo of bench/upstreams.ts, both in a process of their own (their timers and
// sockets share no event loop with the shop). Answers {easypost, shippo} ({url, apiKey} each) when they listen, then:
// 'counts': each fake's purchases and 429s, and what the chaos switch saw; {failFor: {upstream, ms}}: that fake answers
// 500 to every call for `ms` from now; {chaos: {upstream, downAt, backAt}}: that fake refuses connections once `downAt`
// labels more are bought at both together, and takes them again once `backAt` are. Runs until it is killed.
import { on } from 'node:events';
import { startFakeEasyPost } from '../test/fake-easypost.ts';
import { startFakeShippo } from '../test/fake-shippo.ts';

const [easypost, shippo] = await Promise.all([startFakeEasyPost(), startFakeShippo()]);
const fakes = { easypost, shippo };
type Name = keyof typeof fakes;
for (const fake of [easypost, shippo]) {
  fake.latencyMs = Number(process.env.FAKE_LATENCY_MS);
  fake.purchasesPerSecond = Number(process.env.FAKE_PURCHASES_PER_SECOND);
}
// Under the 1-20 lb Priority prices of the benchmark's rows (the fakes' own rates, like a carrier's, are above some and
// would be refused for their cost), EasyPost the cheaper: it measures buying.
easypost.rates.Priority = '4.05';
shippo.rates.usps_priority = '4.10';

const bought = () => easypost.purchases + shippo.purchases;
/** Labels bought (at both, since the switch was set) when the upstream went down and when it came back. */
let chaos: { downAt: number | null; backAt: number | null } = { downAt: null, backAt: null };

/** Watches the purchases every few ms: the switch acts within one purchase or two of its row. */
function startChaos(name: Name, downAt: number, backAt: number) {
  const base = bought();
  const seen: typeof chaos = { downAt: null, backAt: null };
  chaos = seen;
  let busy = false;
  async function look(): Promise<void> {
    const count = bought() - base;
    if (seen.downAt === null && count >= downAt) {
      await fakes[name].listen(false);
      seen.downAt = count;
    } else if (seen.downAt !== null && count >= backAt) {
      await fakes[name].listen(true);
      seen.backAt = count;
      clearInterval(timer);
    }
  }
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void look().finally(() => (busy = false));
  }, 2);
}

process.send!({ easypost: { url: easypost.url, apiKey: easypost.apiKey }, shippo: { url: shippo.url, apiKey: shippo.apiKey } });
for await (const [message] of on(process, 'message')) {
  if (message === 'counts')
    process.send!({
      easypost: { purchases: easypost.purchases, rateLimited: easypost.rateLimited },
      shippo: { purchases: shippo.purchases, rateLimited: shippo.rateLimited },
      chaos,
    });
  if (message.failFor) {
    const { upstream, ms } = message.failFor as { upstream: Name; ms: number };
    const fault = { kind: '500' as const, count: Number.MAX_SAFE_INTEGER };
    fakes[upstream].faults.push(fault);
    setTimeout(() => (fault.count = 0), ms);
    process.send!({ ok: true });
  }
  if (message.chaos) {
    startChaos(message.chaos.upstream, message.chaos.downAt, message.chaos.backAt);
    process.send!({ ok: true });
  }
}
