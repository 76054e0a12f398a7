// compose.yaml cannot run here (no container registry): read as compose reads it (YAML merge keys, ${VAR} from .env),
// it is checked against the README's settings table and the shop's own settings schema, its volumes, its restart
// policy, and the image's entry points (Containerfile).
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { checkoutRoot } from './built-tree.ts';
import { BUILT_NODE_FLAGS } from './processes.ts';

type Service = {
  image?: string;
  build?: unknown;
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  restart?: string;
  read_only?: boolean;
  healthcheck?: { disable?: boolean };
  networks?: string[] | Record<string, { ipv4_address?: string }>;
};
const read = (file: string) => fs.readFileSync(path.join(checkoutRoot, file), 'utf8');
const composeText = read('compose.yaml');
const compose = parse(composeText, { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const services = compose.services;

/** `.env.example`'s variables and values. */
const envExample = new Map(
  read('.env.example')
    .split('\n')
    .filter((line) => /^[A-Z0-9_]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const),
);

/** Every variable of the README's settings table ("Configuration"). */
function readmeSettings(): Set<string> {
  const readme = read('README.md');
  const section = readme.slice(readme.indexOf('\n## Configuration'), readme.indexOf('\n## ', readme.indexOf('\n## Configuration') + 5));
  const names = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]!));
  return new Set(names);
}

/** A value as compose interpolates it from `env` (.env): ${VAR}, ${VAR:-default}, ${VAR:?error}, $$. */
function interpolate(value: string, env: Map<string, string>): string {
  return value
    .replace(/\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, rest?: string) => {
      const set = env.get(name);
      if (set) return set;
      if (kind === '?') throw new Error(`${name}: ${rest}`);
      return kind === '-' ? rest! : '';
    })
    .replaceAll('$$', '$');
}

/** The secrets .env.example leaves empty for the operator to make (`openssl rand -hex 32`). */
const SECRETS = ['POSTGRES_PASSWORD', 'MINIO_ROOT_PASSWORD', 'JWT_SECRET', 'SECRETS_KEY', 'ALTCHA_HMAC_KEY', 'SANDBOX_WEBHOOK_SECRET'];

/** The shop's services: those that run the image the Containerfile builds. */
const shopServices = Object.entries(services).filter(([, service]) => service.build !== undefined);
const containerfile = read('Containerfile');
/** The JSON array of the Containerfile's last `instruction` (ENTRYPOINT, CMD). */
const execForm = (instruction: string) => JSON.parse([...containerfile.matchAll(new RegExp(`^${instruction} (\\[.*\\])$`, 'gm'))].pop()![1]!) as string[];

describe('compose.yaml', () => {
  it('runs the web processes and the worker from the one image: its entry point with dist/server.js (default) or dist/worker.js', () => {
    expect(shopServices.map(([name]) => name).sort()).toEqual(['web-1', 'web-2', 'worker']);
    expect(execForm('ENTRYPOINT')).toEqual(['node', ...BUILT_NODE_FLAGS]);
    expect(execForm('CMD')).toEqual(['apps/server/dist/server.js']);
    expect(services['web-1']!.command).toBeUndefined();
    expect(services['web-2']!.command).toBeUndefined();
    expect(services.worker!.command).toEqual(['apps/server/dist/worker.js']);
    // The entries the server's build makes (apps/server/build.mjs), run by `npm start` and `npm run worker`.
    const build = read('apps/server/build.mjs');
    for (const entry of ['server', 'worker']) {
      expect(build).toContain(`${entry}: 'src/${entry}.ts'`);
      expect(JSON.parse(read('package.json')).scripts[entry === 'server' ? 'start' : 'worker']).toContain(`scripts/supervise.mjs ${entry}`);
    }
    for (const [name, service] of shopServices) {
      expect([name, service.image]).toEqual([name, services['web-1']!.image]);
      expect([name, service.read_only]).toEqual([name, true]);
    }
    expect(services.worker!.healthcheck).toEqual({ disable: true });
  });

  it('sets only settings of the README table, every one the shop needs on several machines, and the shop accepts them', () => {
    const table = readmeSettings();
    const required = [
      'DATA_DIR',
      'HOST',
      'PUBLIC_URL',
      'TRUST_PROXY',
      'DATABASE_URL',
      'REDIS_URL',
      'S3_BUCKET',
      'S3_ENDPOINT',
      'JWT_SECRET',
      'SECRETS_KEY',
      'ALTCHA_HMAC_KEY',
    ];
    for (const [name, service] of shopServices) {
      const variables = Object.keys(service.environment!);
      expect([name, variables.filter((variable) => !table.has(variable))]).toEqual([name, []]);
      expect([name, required.filter((variable) => !variables.includes(variable))]).toEqual([name, []]);
      // .env.example's values, its secrets filled in (40 characters): the shop's own schema takes them, as it would start.
      const env = new Map([...envExample].map(([key, value]) => [key, SECRETS.includes(key) ? 'x'.repeat(40) : value]));
      const settings = Object.fromEntries(Object.entries(service.environment!).map(([key, value]) => [key, interpolate(String(value), env)]));
      expect(() => loadConfig(settings), name).not.toThrow();
      // DATA_DIR is the service's volume.
      expect(service.volumes!.map((volume) => volume.split(':')[1])).toContain(settings.DATA_DIR);
    }
    expect(services['web-1']!.environment!.QUEUE_RUN_WORKERS).toBe('false');
    expect(services.worker!.environment!.QUEUE_RUN_WORKERS).toBeUndefined();
  });

  it('takes from .env only what .env.example documents, and every secret it needs fails the start when unset', () => {
    const used = new Set([...composeText.matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1]!));
    expect([...used].filter((name) => !envExample.has(name))).toEqual([]);
    expect([...envExample.keys()].filter((name) => !used.has(name))).toEqual([]);
    for (const name of [...SECRETS, 'PORTAL_DOMAIN']) expect(composeText, name).toContain(`\${${name}:?`);
    // No secret ships with a value anyone could copy.
    expect(SECRETS.map((secret) => envExample.get(secret))).toEqual(SECRETS.map(() => ''));
  });

  it('keeps every piece of state in a named volume, and restarts every long-running service unless stopped', () => {
    const dataDirs: Record<string, string> = {
      'web-1': '/data',
      'web-2': '/data',
      worker: '/data',
      caddy: '/data',
      postgres: '/var/lib/postgresql/data',
      redis: '/data',
      minio: '/data',
    };
    const mounted = new Set<string>();
    for (const [name, service] of Object.entries(services)) {
      const volumes = (service.volumes ?? []).map((volume) => volume.split(':'));
      for (const [source] of volumes) if (!source!.startsWith('.') && !source!.startsWith('/')) mounted.add(source!);
      if (dataDirs[name]) expect([name, volumes.some(([source, target]) => target === dataDirs[name] && !source!.startsWith('.'))]).toEqual([name, true]);
      // The bucket's one-shot set-up is the only service that ends.
      expect([name, service.restart]).toEqual([name, name === 'minio-bucket' ? 'on-failure' : 'unless-stopped']);
    }
    expect(Object.keys(services).sort()).toEqual([...Object.keys(dataDirs), 'minio-bucket'].sort());
    expect([...mounted].sort()).toEqual(Object.keys(compose.volumes).sort());
  });

  it("puts Caddy with the repository's Caddyfile in front of both web processes, at the address TRUST_PROXY names", () => {
    const caddy = services.caddy!;
    expect(caddy.volumes).toContain('./deploy/Caddyfile:/etc/caddy/Caddyfile:ro');
    expect(caddy.environment!.PORTAL_UPSTREAMS).toBe('web-1:7400 web-2:7400');
    expect(services['web-1']!.environment!.PORT).toBe('7400');
    const address = (caddy.networks as Record<string, { ipv4_address?: string }>).shop!.ipv4_address;
    expect(services['web-1']!.environment!.TRUST_PROXY).toBe(address);
    expect(read('deploy/Caddyfile')).toMatch(/reverse_proxy \{\$PORTAL_UPSTREAMS[:}]/);
  });
});
