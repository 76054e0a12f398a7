// Issue 45, a shop no request can break: the built shop, started as `npm start` runs it, gets hostile input on every
// route that takes any (each /api route with a body, a query or path parameters, read from Fastify's route table, and
// every upload), and must answer each with a 4xx (or a 503) and a JSON message, stay alive and small, and write no
// ledger row for a request it refused. On SQLite, and on PostgreSQL in the postgres project (TEST_DATABASE_URL).
// The generated requests are fast-check's, from each route's own zod schema, with a fixed seed: reproducible.
import fs from 'node:fs';
import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { AMAZON_CSV_PATH, AMAZON_MAX_BYTES, API_KEY_HEADER, BULK_MAX_BYTES, RESELLER_API_PREFIX } from '@portal/contract';
import { hostileString, untag, valuesFor } from './abuse-shapes.ts';
import { slipSender } from './sample-addresses.ts';
import { csvText, usRows } from './bulk-fixtures.ts';
import { createTestDb, routesUnder, startTestApp, testDbKind } from './harness.ts';
import { call, captcha, processGroup, type BuiltProcess } from './processes.ts';
import { ordinarySlipPages, packingSlipPdf, zeroBombPdf } from './slip-fixtures.ts';
import { JOURNEY_ENV, JOURNEY_PASSWORD, journeyCustomer } from './shop-journey.ts';

/**
 * Shapes the shop does not survive yet, each with its cause: fixed on other branches of issue 45. They are not sent
 * (ABUSE_KNOWN_FAILING=1 sends them too); once the fix is merged, take its line out and the shape is checked for good.
 * `route` narrows an entry to the routes it matches.
 */
const KNOWN_FAILING: { shape: string; route?: RegExp; cause: string }[] = [];

const SEED = 45;
/** Generated requests per route and part (body, query), and per upload route. */
const RUNS = { body: 30, query: 10, upload: 10 };
/** The default of SLIP_READER_MAX_MB: how much the slip reader may grow while it reads a PDF (amazon.test.ts). */
const SLIP_READER_MB = 300;
/**
 * The process may grow past its size at rest by what the slip reader may take for a PDF, plus 150 MB for the rest (the
 * main heap is capped at 256 MB by --max-old-space-size, and a 20 MB upload is buffered whole once or twice).
 */
const RSS_GROWTH_MB = SLIP_READER_MB + 150;

const recorded = vi.hoisted(() => [] as { method: string; url: string; httpPart: string; schema: unknown }[]);
// Every route's schemas as Fastify compiles them: the route table's zod schemas (body, querystring, params).
vi.mock('fastify-type-provider-zod', async (importOriginal) => {
  const real = await importOriginal<typeof import('fastify-type-provider-zod')>();
  return { ...real, validatorCompiler: (route: (typeof recorded)[number]) => (recorded.push(route), real.validatorCompiler(route as never)) };
});

type Route = { method: string; path: string; body?: JsonSchema; querystring?: JsonSchema };
type JsonSchema = Parameters<typeof valuesFor>[0];
type Probe = { route: string; shapes: string[]; method: string; path: string; body?: string | Uint8Array | FormData; type?: string };
type Failure = { route: string; shapes: string[]; what: string; sent: string; known?: string };

const group = processGroup();
let drop = async () => {};
let shop: BuiltProcess;
let startShop: () => Promise<BuiltProcess>;
let ledgerRows: () => Promise<{ id: string; amount_cents: number; kind: string; reference: string | null }[]>;
let priceOf: (kind: string, reference: string) => Promise<number | undefined>;
const who = { token: '', apiKey: '', tgId: '' };
const sendKnown = process.env.ABUSE_KNOWN_FAILING === '1';

afterAll(async () => {
  await group.stopAll();
  await drop();
});

const toSchema = (schema: unknown) => z.toJSONSchema(schema as z.ZodType, { io: 'input', unrepresentable: 'any' }) as JsonSchema;

/** The /api routes that take input (any but GET, and GET with path parameters or a query), with their schemas. */
async function routeTable(): Promise<Route[]> {
  const app = await startTestApp();
  try {
    await app.app.ready();
    const schema = (method: string, path: string, part: string) => recorded.find((r) => r.method === method && r.url === path && r.httpPart === part)?.schema;
    return routesUnder(app.app, '')
      .map((line) => line.split(' '))
      .filter(([method, path]) => path.startsWith('/api/') && (method !== 'GET' || path.includes(':') || schema(method, path, 'querystring')))
      .map(([method, path]) => {
        const [body, querystring] = [schema(method, path, 'body'), schema(method, path, 'querystring')];
        return { method, path, body: body ? toSchema(body) : undefined, querystring: querystring ? toSchema(querystring) : undefined };
      });
  } finally {
    await app.close();
  }
}

beforeAll(async () => {
  const db = await createTestDb();
  drop = db.drop;
  const env = {
    ...JOURNEY_ENV,
    DATA_DIR: db.dataDir,
    DATABASE_URL: db.databaseUrl ?? '',
    RATE_LIMIT_MAX: '1000000',
    RESELLER_RATE_LIMIT_PER_MINUTE: '1000000',
    LOG_LEVEL: 'warn',
  };
  startShop = () => group.startBuilt('server', env);
  shop = await startShop();
  ledgerRows = () => db.db.selectFrom('ledger').select(['id', 'amount_cents', 'kind', 'reference']).execute();
  // What a charge's reference cost: the order's, bulk order's or FedEx order's price.
  priceOf = async (kind, reference) => {
    const row =
      kind === 'order_charge'
        ? await db.db.selectFrom('orders').select('price_cents as cents').where('id', '=', reference).executeTakeFirst()
        : kind === 'bulk_charge'
          ? await db.db.selectFrom('bulk_orders').select('total_cents as cents').where('id', '=', reference).executeTakeFirst()
          : kind === 'fedex_charge'
            ? await db.db.selectFrom('fedex_orders').select('price_cents as cents').where('id', '=', reference).executeTakeFirst()
            : undefined;
    return row && Number(row.cents);
  };
  who.token = await journeyCustomer(shop.url);
  who.tgId = (await call(shop.url, '/auth/access', undefined, who.token)).tgId;
  who.apiKey = (await call(shop.url, '/account/api-key', {}, who.token)).api_key;
}, 120_000);

/** Signs in again or makes a new API key when a request has ended the session or replaced the key. */
async function keepCredentials(): Promise<void> {
  if ((await fetch(`${shop.url}/api/v1/auth/access`, { headers: { authorization: `Bearer ${who.token}` } })).status === 401) {
    who.token = (await call(shop.url, '/auth/login', { tgId: who.tgId, password: JOURNEY_PASSWORD, captchaToken: await captcha(shop.url) })).accessToken;
  }
  if ((await fetch(`${shop.url}${RESELLER_API_PREFIX}/account/balance`, { headers: { [API_KEY_HEADER]: who.apiKey } })).status === 401) {
    who.apiKey = (await call(shop.url, '/account/api-key', {}, who.token)).api_key;
  }
}

const rssMb = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
};

/** A path with its parameters filled: `value` for each, or a plausible id. */
const fill = (path: string, value = '5f0d2c4e-6a1b-4b8e-9c3d-2e7f8a9b0c1d') => path.replace(/:[a-z_]+/gi, value);

/** A query string of a generated object: arrays as repeated keys, objects as JSON. */
function queryOf(value: unknown): string {
  const params = new URLSearchParams();
  for (const [key, item] of Object.entries((value ?? {}) as Record<string, unknown>)) {
    for (const one of Array.isArray(item) ? item : [item]) {
      if (one !== undefined) params.append(key, typeof one === 'object' && one !== null ? JSON.stringify(one) : String(one));
    }
  }
  return params.toString();
}

/** `count` samples of `arbitrary`, the same on every run (the route's name picks the seed). */
function samples<T>(arbitrary: fc.Arbitrary<T>, route: string, count: number): { value: unknown; shapes: string[] }[] {
  let seed = SEED;
  for (const char of route) seed = (seed * 31 + char.charCodeAt(0)) | 0;
  return fc.sample(arbitrary, { seed, numRuns: count }).map((generated) => {
    const shapes = new Set<string>();
    const value = untag(generated, shapes);
    return { value, shapes: shapes.size > 0 ? [...shapes] : ['plausible'] };
  });
}

const json = (route: Route, shapes: string[], body: string, path = fill(route.path)): Probe => ({
  route: `${route.method} ${route.path}`,
  shapes,
  method: route.method,
  path,
  body,
  type: 'application/json',
});

/** Bodies that are hostile whatever the route: broken or huge JSON, deep nesting, the wrong type. */
function bodyShapes(route: Route): Probe[] {
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  const shapes: [string, string, string?][] = [
    ['invalid JSON', '{"labelType": "priority", '],
    ['top-level scalar', '1e308'],
    ['top-level scalar', 'null'],
    ['top-level array', '[{"labelType":"priority"}]'],
    ['duplicate keys', '{"labelType":"priority","labelType":{"$ne":null},"__proto__":{"isAdmin":true}}'],
    ['raw control characters in JSON', '{"name":"a\u0000b\u0007"}'],
    ['escaped lone surrogates in JSON', `{"name":"${'\\ud800'.repeat(1000)}","labelType":"\\udfff"}`],
    ['deeply nested arrays', nested(100_000)],
    ['deeply nested objects', '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000)],
    ['50,000 keys', `{${Array.from({ length: 50_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`],
    ['body over the limit', JSON.stringify({ name: 'A'.repeat(1024 * 1024) })],
    ['nested arrays 7.9 MiB', nested(4_140_000)],
    ['wrong content type', 'labelType=priority&weight=1e308', 'application/x-www-form-urlencoded'],
    ['wrong content type', '<order><weight>1e308</weight></order>', 'application/xml'],
    ['wrong content type', '{"labelType":"priority"}', 'text/plain'],
  ];
  return shapes.map(([shape, body, type]) => ({ ...json(route, [shape], body), ...(type && { type }) }));
}

/** Path parameters that are hostile: bad escapes, encoded oddities, too long, numbers. */
const PARAM_SHAPES: [string, string][] = [
  ['bad percent escape', '%'],
  ['bad percent escape', '%E0%A4%A'],
  ['encoded lone surrogate', '%ED%A0%80'],
  ['NUL in a path parameter', '%00'],
  ['bidi marks', encodeURIComponent('\u202Eevil\u202C')],
  ['combining run', encodeURIComponent('e' + '\u0301'.repeat(300))],
  ['huge string', 'A'.repeat(5000)],
  ['injection text', encodeURIComponent("1' OR '1'='1")],
  ['injection text', '..%2F..%2Fetc%2Fpasswd'],
  ['1e308 as string', '1e308'],
  ['NaN-ish string', 'NaN'],
  ['negative number', '-1'],
  ['zero', '0'],
];

function routeProbes(route: Route): Probe[] {
  const name = `${route.method} ${route.path}`;
  const probes: Probe[] = [];
  const admin = route.path.startsWith('/api/v1/admin/');
  // The operator's routes refuse a customer before reading anything: a few of each suffice.
  const runs = (count: number) => (admin ? 3 : count);
  if (route.path.includes(':')) {
    for (const [shape, value] of PARAM_SHAPES)
      probes.push({ ...json(route, [shape], '{}', fill(route.path, value)), ...(route.method === 'GET' && { body: undefined }) });
  }
  if (route.querystring) {
    for (const { value, shapes } of samples(valuesFor(route.querystring, route.querystring), `${name} query`, runs(RUNS.query))) {
      probes.push({
        route: name,
        shapes,
        method: route.method,
        path: `${fill(route.path)}?${queryOf(value)}`,
        ...(route.method !== 'GET' && { body: '{}', type: 'application/json' }),
      });
    }
  }
  if (route.method === 'GET') return probes;
  if (route.body) {
    for (const { value, shapes } of samples(valuesFor(route.body, route.body, '', 0, 9), name, runs(RUNS.body))) {
      probes.push(json(route, shapes, JSON.stringify(value)));
    }
    // Plausible bodies, which may succeed: a 2xx must then have charged exactly its order's price, if anything.
    for (const { value, shapes } of samples(valuesFor(route.body, route.body, '', 0, 1000), `${name} plausible`, runs(3))) {
      probes.push(json(route, shapes, JSON.stringify(value)));
    }
    // The same as a form, for the routes that take one.
    for (const { value, shapes } of samples(valuesFor(route.body, route.body, '', 0, 9), `${name} form`, runs(3))) {
      probes.push({ ...json(route, [...shapes, 'as a form'], queryOf(value)), type: 'application/x-www-form-urlencoded' });
    }
  }
  return [...probes, ...bodyShapes(route).slice(0, admin ? 4 : undefined)];
}

/** The multipart routes (they say so to a JSON body), with the file's field and plausible text fields. */
const UPLOADS: Record<string, { file: string; kind: 'csv' | 'pdf' | 'label'; fields: Record<string, string> }> = {
  'POST /api/v1/order/validatecsv': { file: 'csv', kind: 'csv', fields: { labeltype: 'uspsv9' } },
  'POST /api/v1/order/createOrderFromCSV': { file: 'csv', kind: 'csv', fields: { type: 'uspsv9', total_price: '1', design: '' } },
  [`POST /api/v1${AMAZON_CSV_PATH}`]: {
    file: 'pdf',
    kind: 'pdf',
    fields: { ...slipSender(), weight: '2' },
  },
  'POST /api/v1/admin/fedex-orders/:id/complete': { file: 'label', kind: 'label', fields: { trackingNumber: '1234' } },
};

const form = (fields: Record<string, string>, files: { field: string; data: string | Uint8Array; name?: string }[]) => {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  for (const file of files) body.append(file.field, new Blob([file.data as BlobPart]), file.name ?? 'upload');
  return body;
};

async function uploadProbes(route: Route): Promise<Probe[][]> {
  const name = `${route.method} ${route.path}`;
  const { file, kind, fields } = UPLOADS[name];
  const upload = (shapes: string[], data: string | Uint8Array, extra: Record<string, string> = fields): Probe => ({
    route: name,
    shapes,
    method: 'POST',
    path: fill(route.path),
    body: form(extra, [{ field: file, data }]),
  });
  const probes: Probe[][] = [];
  const one = (probe: Probe) => probes.push([probe]);
  if (kind === 'csv') {
    const header = csvText([]).trimEnd();
    one(upload(['5 MB of blank lines'], header + '\n'.repeat(BULK_MAX_BYTES - header.length - 1)));
    one(upload(['a million columns'], `${Array.from({ length: 1_000_000 }, (_, i) => `c${i % 10}`).join(',')}\n1,2,3\n`.slice(0, BULK_MAX_BYTES - 1)));
    one(upload(['a 4 MB cell'], `${header}\n"${'A'.repeat(4 * 2 ** 20)}"\n`));
    one(upload(['unclosed quote'], `${header}\n"${'a,'.repeat(500_000)}\n`));
    one(upload(['file over the size limit'], 'x'.repeat(BULK_MAX_BYTES + 1)));
    one(upload(['binary garbage'], Buffer.from(Array.from({ length: 65_536 }, (_, i) => (i * 7919) % 256))));
    one(upload(['UTF-16 file'], Buffer.from(`\ufeff${csvText(usRows(5))}`, 'utf16le')));
    one(upload(['50,000 rows'], csvText(usRows(50_000)).slice(0, BULK_MAX_BYTES - 1)));
    const hostileRows = fc.array(fc.tuple(fc.nat({ max: 4 }), fc.nat({ max: 20 }), hostileString), { minLength: 1, maxLength: 6 });
    for (const { value, shapes } of samples(hostileRows, `${name} rows`, RUNS.upload)) {
      // Five ordinary rows with hostile cells in them.
      const lines = csvText(usRows(5)).split('\r\n');
      for (const [row, column, cell] of value as [number, number, string][]) {
        const cells = lines[row + 1].split(',');
        cells[column % cells.length] = `"${cell.replaceAll('"', '""')}"`;
        lines[row + 1] = cells.join(',');
      }
      one(upload(shapes, lines.join('\r\n')));
    }
  } else if (kind === 'pdf') {
    const bomb = await zeroBombPdf(320);
    one(upload(['PDF bomb (320 MiB stream)'], bomb));
    probes.push([1, 2, 3].map(() => upload(['three PDF bombs at once'], bomb)));
    const slips = await packingSlipPdf(ordinarySlipPages(2));
    one(upload(['truncated PDF'], slips.subarray(0, slips.length / 2)));
    one(upload(['not a PDF'], '%PDF-1.7\n' + 'garbage '.repeat(10_000)));
    one(upload(['empty file'], ''));
    one(upload(['file over the size limit'], Buffer.alloc(AMAZON_MAX_BYTES + 1, 32)));
  } else {
    one(upload(['not a PDF'], 'garbage'));
  }
  // The form around the file: too many parts, two files, no file, a field too large, cut off, no boundary.
  one({
    ...upload(['two files'], 'a'),
    body: form(fields, [
      { field: file, data: 'a' },
      { field: file, data: 'b' },
    ]),
  });
  one({ ...upload(['no file'], ''), body: form(fields, []) });
  one(upload(['too many fields'], 'a', Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, 'x']))));
  one(upload(['field over 10 kB'], 'a', { ...fields, [Object.keys(fields)[0]]: 'A'.repeat(20_000) }));
  const cut = `--b\r\nContent-Disposition: form-data; name="${file}"; filename="a"\r\n\r\n${'x'.repeat(1000)}`;
  one({ route: name, shapes: ['cut-off form'], method: 'POST', path: fill(route.path), body: cut, type: 'multipart/form-data; boundary=b' });
  one({ route: name, shapes: ['form without a boundary'], method: 'POST', path: fill(route.path), body: 'x', type: 'multipart/form-data' });
  // Hostile text fields beside a plausible file.
  const good = kind === 'csv' ? csvText(usRows(2)) : kind === 'pdf' ? await packingSlipPdf(ordinarySlipPages(1)) : 'x';
  const fieldValues = fc.record(Object.fromEntries(Object.keys(fields).map((key) => [key, fc.oneof(fc.constant(fields[key]), hostileString)])));
  for (const { value, shapes } of samples(fieldValues, `${name} fields`, RUNS.upload)) one(upload(shapes, good, value as Record<string, string>));
  return probes;
}

type Outcome = { status?: number; failure?: string; closedEarly?: boolean };

/**
 * One request over node:http, its body written 64 kB at a time until an answer comes, as curl does: an answer sent
 * before the whole body was (a 413, the shop closing the connection on the rest) is read. fetch would fail writing
 * (EPIPE) and never show it. Undefined status: no answer at all.
 */
async function exchange(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<{ status?: number; text: string; error?: string; early?: boolean }> {
  return new Promise((resolve) => {
    const request = http.request(url, { method, headers: { ...headers, ...(body && { 'content-length': String(body.length) }) }, agent: false });
    let answered = false;
    request.setTimeout(90_000, () => request.destroy(new Error('no answer in 90 s')));
    request.on('response', (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode, text: Buffer.concat(chunks).toString() });
        request.destroy(); // what is left of the body is not sent
      });
      response.on('error', (error) => resolve({ status: response.statusCode, text: `(answer cut off: ${error.message})` }));
    });
    let finished = false;
    request.on('finish', () => (finished = true));
    request.on('error', (error: Error & { code?: string }) => {
      if (!answered) resolve({ text: '', error: error.code ?? error.message, early: !finished });
    });
    void (async () => {
      // A large body waits a moment for an answer to its headers alone (a 413 by its length).
      request.flushHeaders();
      if (body && body.length > 65_536) for (let i = 0; i < 50 && !answered; i++) await new Promise((wait) => setTimeout(wait, 1));
      for (let at = 0; body && at < body.length && !answered && !request.destroyed; at += 65_536) {
        request.write(body.subarray(at, at + 65_536));
        while (request.writableNeedDrain && !answered && !request.destroyed) await new Promise((wait) => setTimeout(wait, 1));
      }
      if (!answered && !request.destroyed) request.end();
    })();
  });
}

async function send(probe: Probe): Promise<Outcome> {
  const reseller = probe.path.startsWith(RESELLER_API_PREFIX);
  const headers: Record<string, string> = reseller ? { [API_KEY_HEADER]: who.apiKey } : { authorization: `Bearer ${who.token}` };
  if (probe.type) headers['content-type'] = probe.type;
  let body: Buffer | undefined;
  if (probe.body instanceof FormData) {
    // The form as fetch would encode it, boundary and all.
    const encoded = new Request('http://form', { method: 'POST', body: probe.body });
    headers['content-type'] = encoded.headers.get('content-type')!;
    body = Buffer.from(await encoded.arrayBuffer());
  } else if (probe.body !== undefined) body = Buffer.from(probe.body as string);
  const response = await exchange(`${shop.url}${probe.path}`, probe.method, headers, body);
  // The shop refused the body before reading it all and closed the connection, whose reset lost its answer in flight.
  if (response.status === undefined && response.early && ['EPIPE', 'ECONNRESET'].includes(response.error!)) return { closedEarly: true };
  if (response.status === undefined) return { failure: `no answer: ${response.error}` };
  const text = response.text;
  if (response.status >= 200 && response.status < 300) return { status: response.status };
  if (!(response.status >= 400 && response.status < 500) && response.status !== 503)
    return { status: response.status, failure: `${response.status} ${text.slice(0, 300)}` };
  let message: unknown;
  try {
    message = JSON.parse(text).message;
  } catch {
    // not JSON: said below
  }
  return typeof message === 'string' && message.length > 0
    ? { status: response.status }
    : { status: response.status, failure: `${response.status} without a JSON message: ${text.slice(0, 300)}` };
}

const knownCause = (probe: Probe) =>
  KNOWN_FAILING.find((known) => probe.shapes.includes(known.shape) && (!known.route || known.route.test(probe.route)))?.cause;

const describe = (probe: Probe) =>
  `${probe.method} ${probe.path.slice(0, 200)}${typeof probe.body === 'string' ? ` ${probe.body.slice(0, 200)}${probe.body.length > 200 ? `… (${probe.body.length} chars)` : ''}` : probe.body ? ' (multipart)' : ''}`;

it(`every route answers hostile input with a 4xx and a message, and the shop stays up, small, and charges nothing for it (${testDbKind})`, async () => {
  const started = performance.now();
  const routes = await routeTable();
  // Every operation of the reseller API's OpenAPI document is among them.
  const document = await (await fetch(`${shop.url}${RESELLER_API_PREFIX}/openapi.json`)).json();
  const names = new Set(routes.map((route) => `${route.method} ${route.path}`));
  for (const [path, operations] of Object.entries<Record<string, unknown>>(document.paths)) {
    for (const method of Object.keys(operations)) {
      const name = `${method.toUpperCase()} ${RESELLER_API_PREFIX}${path.replace(/\{(\w+)\}/g, ':$1')}`;
      if (method !== 'get' || path.includes('{')) expect(names.has(name), name).toBe(true);
    }
  }

  const uploads: Route[] = [];
  for (const route of routes.filter((r) => r.method === 'POST' && !r.body)) {
    const answer = await (
      await fetch(`${shop.url}${fill(route.path)}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${who.token}`, 'content-type': 'application/json' },
        body: '{}',
      })
    ).text();
    if (answer.includes('multipart/form-data')) uploads.push(route);
    await keepCredentials(); // the probe may have been a sign-out
  }
  // A new upload route needs its form in UPLOADS (the operator's upload refuses a customer before saying so).
  expect(uploads.map((r) => `${r.method} ${r.path}`).sort()).toEqual(
    Object.keys(UPLOADS)
      .filter((name) => !name.includes('/admin/'))
      .sort(),
  );
  uploads.push(routes.find((r) => `${r.method} ${r.path}` === 'POST /api/v1/admin/fedex-orders/:id/complete')!);

  const failures: Failure[] = [];
  const shapes = new Set<string>();
  const reached = new Set<string>();
  const skipped = new Map<string, number>();
  let requests = 0;
  let succeeded = 0;
  let closedEarly = 0;
  const idle = rssMb(shop.pid);
  const bound = idle + RSS_GROWTH_MB;
  // The largest size seen in all, and since the batch began (sampled every 20 ms).
  const size = { peak: idle, batch: idle };
  const sample = () => {
    const rss = rssMb(shop.pid);
    size.peak = Math.max(size.peak, rss);
    size.batch = Math.max(size.batch, rss);
  };
  let sampler = setInterval(sample, 20);
  const accepted = new Set<string>();
  const taken = new Map<string, Set<string>>();

  /** Sends a batch at once; checks each answer, the process, its size and the ledger. */
  async function check(batch: Probe[]) {
    const todo = batch.filter((probe) => {
      const cause = knownCause(probe);
      if (cause && !sendKnown) skipped.set(probe.shapes.join(', '), (skipped.get(probe.shapes.join(', ')) ?? 0) + 1);
      return !cause || sendKnown;
    });
    if (todo.length === 0) return;
    const before = new Set((await ledgerRows()).map((row) => row.id));
    size.batch = rssMb(shop.pid);
    const outcomes = await Promise.all(todo.map(send));
    requests += todo.length;
    const fail = (probe: Probe, what: string) =>
      failures.push({ route: probe.route, shapes: probe.shapes, what, sent: describe(probe), ...(knownCause(probe) && { known: knownCause(probe) }) });
    for (const [i, probe] of todo.entries()) {
      reached.add(probe.route);
      for (const shape of probe.shapes) shapes.add(shape);
      if (outcomes[i].failure) fail(probe, outcomes[i].failure!);
      // Not a failure (a search may hold anything), but said: what the shop took in.
      const status = outcomes[i].status ?? 0;
      if (status >= 200 && status < 300) for (const shape of probe.shapes) taken.set(shape, (taken.get(shape) ?? new Set()).add(probe.route));
    }
    // Alive: the same process, answering.
    let alive = false;
    try {
      process.kill(shop.pid, 0);
      alive = (await fetch(`${shop.url}/healthz`, { signal: AbortSignal.timeout(10_000) })).ok;
    } catch {
      alive = false;
    }
    sample();
    if (size.batch > bound) fail(todo[0], `RSS ${Math.round(size.batch)} MB, over the bound of ${Math.round(bound)} MB`);
    // A process left over the bound would fail every request after: it is started afresh, as a dead one is.
    const swollen = alive && rssMb(shop.pid) > bound;
    if (swollen) fail(todo[0], `RSS still ${Math.round(rssMb(shop.pid))} MB once answered: the shop is restarted`);
    if (!alive) fail(todo[0], 'the process died or stopped answering');
    if (!alive || swollen) {
      clearInterval(sampler);
      await group.stopAll();
      shop = await startShop();
      sampler = setInterval(sample, 20);
      await keepCredentials();
    }
    // The ledger: a new row is a charge for a request that was answered 2xx (the order's price), or follows one.
    const fresh = (await ledgerRows()).filter((row) => !before.has(row.id));
    const ok = todo.some((_, i) => outcomes[i].status! >= 200 && outcomes[i].status! < 300);
    if (ok) succeeded += 1;
    closedEarly += outcomes.filter((outcome) => outcome.closedEarly).length;
    for (const row of fresh) {
      const follows = [...accepted].some((reference) => row.reference?.startsWith(reference));
      const price = row.reference ? await priceOf(row.kind, row.reference) : undefined;
      if (ok && price !== undefined && -row.amount_cents === price) accepted.add(row.reference!);
      else if (!follows) fail(todo[0], `a ledger row for a request answered ${outcomes.map((o) => o.status).join(', ')}: ${JSON.stringify(row)}`);
    }
  }

  try {
    for (const route of routes) {
      for (const probe of routeProbes(route)) await check([probe]);
      if (uploads.includes(route)) for (const batch of await uploadProbes(route)) await check(batch);
      await keepCredentials();
    }
  } finally {
    clearInterval(sampler);
  }

  const seconds = Math.round((performance.now() - started) / 1000);
  console.log(
    [
      `abuse suite (${testDbKind}): ${requests} requests, ${shapes.size} shapes, ${reached.size} routes in ${seconds} s; ${closedEarly} refused by closing the connection before their body was sent, ${succeeded} answered 2xx, ${accepted.size} of them charged (each its order's price); RSS at rest ${Math.round(idle)} MB, peak ${Math.round(size.peak)} MB, bound ${Math.round(bound)} MB`,
      `shapes: ${[...shapes].sort().join('; ')}`,
      ...[...taken].filter(([shape]) => shape !== 'plausible').map(([shape, where]) => `answered 2xx with ${shape}: ${[...where].sort().join(', ')}`),
      ...[...skipped].map(([shape, count]) => `skipped, known failing: ${shape} (${count} requests)`),
      ...failures.map((f) => `${f.known ? `known (${f.known})` : 'FAILURE'}: ${f.route} [${f.shapes.join(', ')}] ${f.what}\n    sent: ${f.sent}`),
    ].join('\n'),
  );
  expect(reached.size).toBe(routes.length);
  expect(failures.filter((f) => !f.known)).toEqual([]);
}, 900_000);
