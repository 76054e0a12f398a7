// The fake EasyPost of bench/easypost.ts in a process of its own, so that its timers and sockets share no event loop
// with the orders the benchmark offers: answers {url, apiKey} when it listens and {rateLimited} for each 'counts'
// message and, for each 'answered' message, what each Shipment's calls took at the fake by the name of its receiver,
// until it is killed.
import { on } from 'node:events';
import { startFakeEasyPost } from '../test/fake-easypost.ts';

const fake = await startFakeEasyPost();
fake.latencyMs = Number(process.env.FAKE_LATENCY_MS);
fake.purchasesPerSecond = Number(process.env.FAKE_PURCHASES_PER_SECOND);
// Under the 2 lb Priority price the benchmark's orders pay (the fake's own rate, like a carrier's, is above it and would
// be refused for its cost): it measures buying.
fake.rates.Priority = '4.10';
process.send!({ url: fake.url, apiKey: fake.apiKey });
for await (const [message] of on(process, 'message')) {
  if (message === 'counts') process.send!({ rateLimited: fake.rateLimited });
  if (message === 'answered')
    process.send!({ byReceiver: [...fake.answeredInMs].map(([shipmentId, ms]) => [fake.shipments.get(shipmentId).to_address.name, ms]) });
}
