import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOverrides } from '../src/app.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { createDatabase, migrateToLatest, SCHEMA_CHANGE_LOCK, type Db } from '../src/db/database.ts';
import { uniqueId } from './basics.ts';
import { fundUser, newCustomer } from './customers.ts';

export { fundUser };
import { solvedCaptcha } from './processes.ts';

/** Which database this test run uses: the vitest project sets TEST_DB (sqlite, or postgres when TEST_DATABASE_URL is set). */
export const testDbKind = process.env.TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

/**
 * A fresh, migrated database of its own (migrated up to `upTo` when given): a temp SQLite file (dataDir/portal.sqlite), or a new schema on the test
 * PostgreSQL server. `databaseUrl` is what another process (a worker) sets as DATABASE_URL to open the same one.
 */
export async function createTestDb(upTo?: string): Promise<{ db: Db; dataDir: string; databaseUrl?: string; drop: () => Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'portal-test-'));
  // Undone in reverse by drop, or at once when a step of the set-up throws: nothing is left behind.
  const undo: (() => Promise<unknown> | void)[] = [() => fs.rmSync(dataDir, { recursive: true, force: true })];
  const drop = async () => {
    for (const step of undo.splice(0).reverse()) await step();
  };
  try {
    if (testDbKind === 'postgres') {
      const url = process.env.TEST_DATABASE_URL!;
      const schema = uniqueId('t');
      await withPgClient(url, (client) => client.query(`CREATE SCHEMA ${schema}`));
      undo.push(() =>
        withPgClient(url, async (client) => {
          await client.query('BEGIN');
          await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_CHANGE_LOCK]);
          await client.query(`DROP SCHEMA ${schema} CASCADE`);
          await client.query('COMMIT');
        }),
      );
      const db = createDatabase({ url, sqliteFile: '', pgSchema: schema, poolSize: 20 });
      undo.push(() => db.destroy());
      await migrateToLatest(db, upTo);
      const databaseUrl = `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
      return { db, dataDir, databaseUrl, drop };
    }
    const db = createDatabase({ sqliteFile: path.join(dataDir, 'portal.sqlite') });
    undo.push(() => db.destroy());
    await migrateToLatest(db, upTo);
    return { db, dataDir, drop };
  } catch (error) {
    await drop();
    throw error;
  }
}

async function withPgClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export type SmtpInbox = {
  url: string;
  /** Each message received, with its header block as sent (unfolded: a folded header is one line). */
  messages: { to: string; subject: string; text: string; headers: string }[];
  /** The newest 6-digit code mailed to this address, waiting for it to arrive. */
  codeFor(to: string): Promise<string>;
  close(): Promise<void>;
};

/** A real SMTP server on a free local port that keeps what it receives. */
export async function startSmtpInbox(): Promise<SmtpInbox> {
  const messages: SmtpInbox['messages'] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk) => (raw += chunk));
      stream.on('end', () => {
        const subject = /^Subject: (.*)$/im.exec(raw)?.[1]?.trim() ?? '';
        const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
        const body = rest.join('\n');
        const headers = head.replace(/\r?\n[ \t]+/g, ' ');
        for (const to of session.envelope.rcptTo) messages.push({ to: to.address.toLowerCase(), subject, text: body, headers });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async codeFor(to) {
      for (let i = 0; i < 100; i++) {
        const mail = messages.filter((m) => m.to === to.toLowerCase()).at(-1);
        const code = mail && /\b(\d{6})\b/.exec(mail.text)?.[1];
        if (code) return code;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no code mailed to ${to}`);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type TestApp = {
  app: FastifyInstance;
  db: Db;
  config: Config;
  /** DATABASE_URL of this app's database for another process (PostgreSQL); SQLite is config.dataDir/portal.sqlite. */
  databaseUrl?: string;
  inbox: SmtpInbox;
  close(): Promise<void>;
};

/**
 * The password hash of the tests' apps: argon2id at its lowest cost, about 1 ms instead of half a second of CPU (a
 * sign-up is two hashes). The shop's own cost is the default, which auth.test.ts checks.
 */
export const TEST_PASSWORD_COST = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

/** The real app on a fresh database, mailing through a real local SMTP server. */
export async function startTestApp(env: Record<string, string> = {}, overrides: AppOverrides = {}): Promise<TestApp> {
  const { db, dataDir, databaseUrl, drop } = await createTestDb();
  let inbox: SmtpInbox | undefined;
  try {
    inbox = await startSmtpInbox();
    const config = loadConfig({
      DATA_DIR: dataDir,
      SMTP_URL: inbox.url,
      LOG_LEVEL: 'silent',
      ALTCHA_MAX_NUMBER: '1000',
      RATE_LIMIT_MAX: '1000',
      WEB_DIST: path.join(dataDir, 'no-web'),
      // The sandbox's tracking timer is off unless a test asks for it: its events would add to the deliveries counted.
      LABEL_SANDBOX_TRACKING_STEP_MS: '0',
      // Days (ship dates, the overview's) are UTC days whatever the machine's zone, as the tests' shopDay() counts them (its zone is UTC unless set).
      SHOP_TIME_ZONE: 'UTC',
      ...env,
    });
    const app = await buildApp(config, { db, logger: false, passwordCost: TEST_PASSWORD_COST, ...overrides });
    const started = inbox;
    return {
      app,
      db,
      config,
      databaseUrl,
      inbox: started,
      async close() {
        try {
          await app.close();
        } finally {
          await started.close();
          await drop();
        }
      },
    };
  } catch (error) {
    // Nothing a failed start made is left behind.
    await inbox?.close();
    await drop();
    throw error;
  }
}

/** Solves a fresh ALTCHA challenge the way the widget does and returns the payload it would submit. */
export const solveCaptcha = async (app: FastifyInstance): Promise<string> =>
  solvedCaptcha((await app.inject({ method: 'GET', url: '/api/v1/captcha/challenge' })).json());

/** A unique, valid Telegram username. */
export const uniqueTgId = (prefix = 'user') => uniqueId(prefix);

/** Registers and signs in a new user through the real calls; returns its bearer token. */
export const signUp = (app: FastifyInstance, tgId = uniqueTgId(), password = 'correct horse 1') => newCustomer(app, { tgId, password });

/** The id of the user a bearer token belongs to. */
export async function userIdOf(app: FastifyInstance, headers: { authorization: string }): Promise<string> {
  return (await app.inject({ method: 'GET', url: '/api/v1/auth/access', headers })).json()._id;
}

/**
 * Every route the app serves under a prefix as 'METHOD /path' (the path after the prefix), read from Fastify's route
 * tree (HEAD and OPTIONS left out), sorted, so a test can check it calls them all.
 */
export function routesUnder(app: FastifyInstance, prefix: string): string[] {
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+) \(([^)]+)\)$/.exec(line);
    if (!match) continue;
    const depth = match[1].length / 4;
    const path = (stack[depth - 1] ?? '') + match[2];
    stack[depth] = path;
    stack.length = depth + 1;
    if (!path.startsWith(prefix)) continue;
    for (const method of match[3].split(', ')) if (method !== 'HEAD' && method !== 'OPTIONS') routes.push(`${method} ${path.slice(prefix.length)}`);
  }
  return routes.sort();
}

/** The queue engines a test runs on: embedded always, BullMQ when TEST_REDIS_URL is set. */
export const engines = ['embedded', ...(process.env.TEST_REDIS_URL ? ['bullmq'] : [])] as const;
export type Engine = (typeof engines)[number];

/** The settings of a queue engine: none for the embedded queue; for BullMQ, the test Redis under the test's own prefix. */
export const queueEnv = (engine: Engine, prefix: string): Record<string, string> =>
  engine === 'bullmq' ? { REDIS_URL: process.env.TEST_REDIS_URL!, QUEUE_PREFIX: prefix } : {};

/** Removes every Redis key under a prefix a test used (BullMQ jobs, attempt counts). */
export async function dropRedisPrefix(redisUrl: string, prefix: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
