/**
 * The docs page's content, made from the reseller API's served OpenAPI document (so the page cannot
 * drift from the API): sections in the document's tag order, each call with its fields, example
 * answer and a curl command filled in with the user's base URL and key. Pure, so a test can make
 * the same commands the page shows.
 */

import { RESELLER_TAGS } from '@portal/contract';

type Json = Record<string, any>;

export type DocsField = { name: string; in: string; type: string; required: boolean; description: string; notes: string[] };
/** An error answer; its example is one line of JSON. */
export type DocsError = { status: string; description: string; example?: string };
export type DocsAnswer = { status: string; description: string; mediaType: string; example?: string };
export type DocsBody = { mediaTypes: string[]; description: string };
export type DocsCall = {
  id: string;
  method: string;
  path: string;
  summary: string;
  description: string;
  body?: DocsBody;
  fields: DocsField[];
  answer?: DocsAnswer;
  errors: DocsError[];
  curl: string;
};
export type DocsEvent = { name: string; summary: string; description: string };
export type DocsSection = { name: string; description: string; calls: DocsCall[]; events: DocsEvent[]; errors: DocsError[] };
export type ResellerDocs = {
  title: string;
  version: string;
  description: string;
  baseUrl: string;
  keyHeader: string;
  keyDescription: string;
  sections: DocsSection[];
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const JSON_MEDIA = 'application/json';

/** Quoted for POSIX shells: inside single quotes only a single quote needs care ('\''). */
export const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** The target of a local `#/...` reference. */
const pointer = (document: Json, ref: string): Json | undefined =>
  ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<Json | undefined>((node, key) => node?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], document);

function resolve(document: Json, schema: Json | undefined): Json {
  let current = schema ?? {};
  for (let hops = 0; typeof current.$ref === 'string' && hops < 20; hops++) current = pointer(document, current.$ref) ?? {};
  return current;
}

/** The branches of a nullable or union schema, resolved. */
const branchesOf = (document: Json, schema: Json): Json[] => (schema.anyOf ?? schema.oneOf ?? [schema]).map((branch: Json) => resolve(document, branch));

function typeName(document: Json, schema: Json): string {
  return branchesOf(document, schema)
    .map((branch) => {
      if (branch.type === 'array') return `array of ${typeName(document, resolve(document, branch.items))}`;
      if (branch.type === 'string' && branch.format && branch.format !== 'binary') return `string (${branch.format})`;
      return String(branch.type ?? 'any');
    })
    .join(' | ');
}

/** What a reader needs of a schema's limits; regex patterns and the integer range's far end are left out. */
function notesOf(document: Json, schema: Json): string[] {
  const main = branchesOf(document, schema).find((branch) => branch.type !== 'null') ?? {};
  const notes: string[] = [];
  if (Array.isArray(main.enum)) notes.push(`one of ${main.enum.join(', ')}`);
  if (main.default !== undefined) notes.push(`default ${JSON.stringify(main.default)}`);
  if (main.minLength !== undefined && main.minLength > 1) notes.push(`at least ${main.minLength} characters`);
  if (main.maxLength !== undefined) notes.push(`at most ${main.maxLength} characters`);
  if (main.minItems !== undefined) notes.push(`at least ${main.minItems} ${main.minItems === 1 ? 'item' : 'items'}`);
  if (main.maxItems !== undefined) notes.push(`at most ${main.maxItems.toLocaleString('en-US')} items`);
  if (main.maximum !== undefined && main.maximum < Number.MAX_SAFE_INTEGER) notes.push(`at most ${main.maximum}`);
  return notes;
}

/** The fields of an object schema; an array of objects adds its items' fields as `name[].field`. */
function fieldsOf(document: Json, schema: Json | undefined, prefix = ''): DocsField[] {
  const object = resolve(document, schema);
  const required: string[] = object.required ?? [];
  return Object.entries<Json>(object.properties ?? {}).flatMap(([name, property]) => {
    const field = {
      name: `${prefix}${name}`,
      in: 'body',
      type: typeName(document, property),
      required: required.includes(name),
      description: property.description ?? resolve(document, property).description ?? '',
      notes: notesOf(document, property),
    };
    const items = resolve(document, property).type === 'array' ? resolve(document, resolve(document, property).items) : undefined;
    return items?.properties && !prefix ? [field, ...fieldsOf(document, items, `${name}[].`)] : [field];
  });
}

const parameterField = (document: Json, parameter: Json): DocsField => {
  const p = resolve(document, parameter);
  return {
    name: p.name,
    in: p.in,
    type: typeName(document, p.schema ?? {}),
    required: Boolean(p.required),
    description: p.description ?? '',
    notes: notesOf(document, p.schema ?? {}),
  };
};

const prettyJson = (value: unknown) => JSON.stringify(value, null, 2);

const errorsOf = (document: Json, operation: Json): DocsError[] =>
  Object.entries<Json>(operation.responses ?? {})
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, response]) => {
      const media = resolve(document, response).content?.[JSON_MEDIA];
      return {
        status,
        description: resolve(document, response).description ?? '',
        ...(media?.example !== undefined ? { example: JSON.stringify(media.example) } : {}),
      };
    });

function answerOf(document: Json, operation: Json): DocsAnswer | undefined {
  const success = Object.entries<Json>(operation.responses ?? {}).find(([status]) => status.startsWith('2'));
  if (!success) return undefined;
  const response = resolve(document, success[1]);
  const [mediaType, media] = Object.entries<Json>(response.content ?? {})[0] ?? [];
  return {
    status: success[0],
    description: response.description ?? '',
    mediaType: mediaType ?? '',
    ...(media?.example !== undefined ? { example: prettyJson(media.example) } : {}),
  };
}

/** A path's `{name}` parameters as NAME placeholders (curl would read braces as a glob). */
const fillPath = (path: string) => path.replace(/\{([^}]+)\}/g, (_, name: string) => name.toUpperCase());

/** The call as a curl command: the key header, a JSON body from the request example, and a file download saved under the server's file name. */
export function curlCommand(call: { method: string; url: string; keyHeader: string; apiKey: string; body?: unknown; savesFile?: boolean }): string {
  const parts = [
    `curl${call.method === 'GET' ? '' : ` -X ${call.method}`}${call.savesFile ? ' -OJ' : ''} ${shellQuote(call.url)}`,
    `-H ${shellQuote(`${call.keyHeader}: ${call.apiKey}`)}`,
  ];
  if (call.body !== undefined) parts.push(`-H ${shellQuote(`content-type: ${JSON_MEDIA}`)}`, `--data ${shellQuote(JSON.stringify(call.body))}`);
  return parts.join(' \\\n  ');
}

function callOf(document: Json, path: string, method: string, operation: Json, baseUrl: string, keyHeader: string, apiKey: string): DocsCall {
  const content: Json = resolve(document, operation.requestBody).content ?? {};
  const bodyMedia = content[JSON_MEDIA] ?? Object.values<Json>(content)[0];
  const answer = answerOf(document, operation);
  return {
    id: operation.operationId ?? `${method}-${path}`,
    method: method.toUpperCase(),
    path,
    summary: operation.summary ?? '',
    description: operation.description ?? '',
    ...(bodyMedia ? { body: { mediaTypes: Object.keys(content), description: resolve(document, bodyMedia.schema).description ?? '' } } : {}),
    fields: [...(operation.parameters ?? []).map((parameter: Json) => parameterField(document, parameter)), ...fieldsOf(document, bodyMedia?.schema)],
    answer,
    errors: errorsOf(document, operation),
    curl: curlCommand({
      method: method.toUpperCase(),
      url: `${baseUrl}${fillPath(path)}`,
      keyHeader,
      apiKey,
      body: content[JSON_MEDIA]?.example,
      savesFile: Boolean(answer?.mediaType) && answer?.mediaType !== JSON_MEDIA,
    }),
  };
}

/** Every error status any call answers, once, in status order, with its first example. */
function errorCatalogue(calls: DocsCall[]): DocsError[] {
  const byStatus = new Map<string, DocsError>();
  for (const error of calls.flatMap((call) => call.errors)) if (!byStatus.has(error.status)) byStatus.set(error.status, error);
  return [...byStatus.values()].sort((a, b) => a.status.localeCompare(b.status));
}

/**
 * The docs page from the served document: the user's base URL and key go into every curl command.
 * The Authentication section lists the errors every call can answer; the errors section lists
 * every error status.
 */
export function buildResellerDocs(document: Json, baseUrl: string, apiKey: string): ResellerDocs {
  const scheme: Json = Object.values<Json>(document.components?.securitySchemes ?? {}).find((s) => s.type === 'apiKey' && s.in === 'header') ?? {
    name: 'x-api-key',
  };
  const keyHeader: string = scheme.name;
  const calls: (DocsCall & { tag: string })[] = Object.entries<Json>(document.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({
      ...callOf(document, path, method, item[method], baseUrl, keyHeader, apiKey),
      tag: item[method].tags?.[0] ?? '',
    })),
  );
  const events: (DocsEvent & { tag: string })[] = Object.entries<Json>(document.webhooks ?? {}).flatMap(([name, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({
      name,
      summary: item[method].summary ?? '',
      description: item[method].description ?? '',
      tag: item[method].tags?.[0] ?? '',
    })),
  );
  const catalogue = errorCatalogue(calls);
  const everyCall = catalogue.filter((error) => calls.every((call) => call.errors.some((e) => e.status === error.status)));
  const tags: { name: string; description?: string }[] = document.tags ?? [];
  return {
    title: document.info?.title ?? '',
    version: document.info?.version ?? '',
    description: (document.info?.description ?? '').replaceAll('{origin}', new URL(baseUrl).origin),
    baseUrl,
    keyHeader,
    keyDescription: scheme.description ?? '',
    sections: tags.map((tag) => ({
      name: tag.name,
      description: tag.description ?? '',
      calls: calls.filter((call) => call.tag === tag.name).map(({ tag: _tag, ...call }) => call),
      events: events.filter((event) => event.tag === tag.name).map(({ tag: _tag, ...event }) => event),
      errors: tag.name === RESELLER_TAGS.authentication ? everyCall : tag.name === RESELLER_TAGS.errors ? catalogue : [],
    })),
  };
}
