import http from 'node:http';
import { vi } from 'vitest';
import { WAIT } from './basics.ts';

/** A failure the fake answers instead of a result, as the Bot API does: `{ ok: false, error_code, description, parameters? }` with that HTTP status. */
export type FakeFailure = { error_code: number; description: string; parameters?: { retry_after?: number } };

export type SentMessage = { chatId: number; text: string; at: number };

export type FakeTelegram = {
  /** TELEGRAM_API_ROOT for the app. */
  apiRoot: string;
  token: string;
  username: string;
  /** Every sendMessage that succeeded, in order. */
  sent: SentMessage[];
  /** Every sendMessage call with the status it got, in order. */
  sendCalls: { chatId: number; at: number; status: number }[];
  /** Every call as its method name, in order (failed ones too). */
  calls: string[];
  /** The last setWebhook call's parameters. */
  webhook: { url: string; secret_token?: string; allowed_updates?: string[] } | null;
  /** The most getUpdates calls that were ever waiting at once (Telegram allows one). */
  maxConcurrentPolls: number;
  /** Long polls cut off by a newer long poll (Telegram's 409 'terminated by other getUpdates request'): two pollers at once. */
  conflicts: number;
  /** getUpdates calls answered so far. */
  polls: number;
  /** How long sendMessage takes to answer once it has taken (or refused) the message: a sender that dies or gives up meanwhile never hears. */
  sendDelayMs: number;
  /** The next sendMessage calls fail like this, one each, in order. */
  failNextSends(...failures: FakeFailure[]): void;
  /** An update as a user's private message (a /command gets its bot_command entity), for polling or a webhook POST. */
  updateOf(chatId: number, text: string, username?: string): Record<string, unknown>;
  /** Queues the user's message for getUpdates. */
  send(chatId: number, text: string, username?: string): void;
  /** Waits for the messages sent to a chat to reach `count`, and answers them. */
  sentTo(chatId: number, count?: number, timeoutMs?: number): Promise<string[]>;
  close(): Promise<void>;
};

/**
 * A local stand-in for the Telegram Bot API (https://core.telegram.org/bots/api) on a free port:
 * `POST /bot<token>/<method>` with a JSON or form body, answering `{ ok: true, result }`. It knows
 * getMe, getUpdates (long polling with offset and timeout, one caller at a time), sendMessage,
 * setWebhook and deleteWebhook.
 */
export async function startFakeTelegram(options: { token?: string; username?: string; sendDelayMs?: number } = {}): Promise<FakeTelegram> {
  const token = options.token ?? '123456:FAKE-test-token';
  const username = options.username ?? 'label_shop_test_bot';
  const updates: { update_id: number }[] = [];
  let nextUpdateId = 1;
  let nextMessageId = 1;
  const failures: FakeFailure[] = [];
  const waiting = new Set<{ answer: (result: unknown) => void; fail: (failure: FakeFailure) => void; offset: number; limit: number }>();

  const fake: FakeTelegram = {
    apiRoot: '',
    token,
    username,
    sent: [],
    sendCalls: [],
    calls: [],
    webhook: null,
    maxConcurrentPolls: 0,
    conflicts: 0,
    polls: 0,
    sendDelayMs: options.sendDelayMs ?? 0,
    failNextSends: (...next) => void failures.push(...next),
    updateOf(chatId, text, from = `user${chatId}`) {
      const command = /^\/\w+/.exec(text)?.[0];
      return {
        update_id: nextUpdateId++,
        message: {
          message_id: nextMessageId++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: chatId, type: 'private', first_name: 'Test', username: from },
          from: { id: chatId, is_bot: false, first_name: 'Test', username: from },
          text,
          ...(command ? { entities: [{ type: 'bot_command', offset: 0, length: command.length }] } : {}),
        },
      };
    },
    send(chatId, text, from) {
      updates.push(fake.updateOf(chatId, text, from) as { update_id: number });
      for (const poll of [...waiting]) {
        const due = updates.filter((u) => u.update_id >= poll.offset).slice(0, poll.limit);
        if (due.length) poll.answer(due);
      }
    },
    sentTo: (chatId, count = 1, timeoutMs = 15_000) =>
      vi.waitFor(
        () => {
          const texts = fake.sent.filter((m) => m.chatId === chatId).map((m) => m.text);
          if (texts.length < count) throw new Error(`chat ${chatId} got ${texts.length} messages, not ${count}: ${JSON.stringify(texts)}`);
          return texts;
        },
        { ...WAIT, timeout: timeoutMs },
      ),
    close: async () => {
      for (const poll of [...waiting]) poll.answer([]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  /** Each method gets the call's parameters, and a promise settled if the caller hangs up before the answer. */
  const methods: Record<string, (params: Record<string, any>, hungUp: Promise<void>) => unknown> = {
    getMe: () => ({
      id: 424242,
      is_bot: true,
      first_name: 'Label Shop',
      username,
      can_join_groups: false,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
    }),
    deleteWebhook: () => {
      fake.webhook = null;
      return true;
    },
    setWebhook: (params) => {
      fake.webhook = { url: params.url, secret_token: params.secret_token, allowed_updates: params.allowed_updates };
      return true;
    },
    sendMessage: async (params) => {
      const chatId = Number(params.chat_id);
      const failure = failures.shift();
      fake.sendCalls.push({ chatId, at: Date.now(), status: failure?.error_code ?? 200 });
      if (!failure) fake.sent.push({ chatId, text: String(params.text), at: Date.now() });
      if (fake.sendDelayMs > 0) await new Promise((r) => setTimeout(r, fake.sendDelayMs));
      if (failure) throw failure;
      return { message_id: nextMessageId++, date: Math.floor(Date.now() / 1000), chat: { id: chatId, type: 'private' }, text: params.text };
    },
    getUpdates: (params, hungUp) => {
      const offset = Number(params.offset ?? 0);
      const limit = Number(params.limit ?? 100);
      // Updates below the offset are confirmed and forgotten.
      while (updates.length && updates[0].update_id < offset) updates.shift();
      const timeout = Number(params.timeout ?? 0);
      // A newer call cuts off one still waiting, as Telegram does. A call that does not wait (timeout 0) is how a stopping
      // poller confirms its last updates right after aborting its own long poll, so only a waiting one counts as a second poller.
      for (const poll of [...waiting]) {
        if (timeout > 0) fake.conflicts++;
        poll.fail({ error_code: 409, description: 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running' });
      }
      const due = updates.filter((u) => u.update_id >= offset).slice(0, limit);
      if (due.length || timeout <= 0) return due;
      return new Promise((answer, fail) => {
        const poll = { answer: (result: unknown) => done(() => answer(result)), fail: (failure: FakeFailure) => done(() => fail(failure)), offset, limit };
        const timer = setTimeout(() => poll.answer([]), timeout * 1000);
        const done = (settle: () => void) => {
          clearTimeout(timer);
          if (waiting.delete(poll)) settle();
        };
        waiting.add(poll);
        fake.maxConcurrentPolls = Math.max(fake.maxConcurrentPolls, waiting.size);
        // A caller that gave up (a stopped poller aborts its call) is no longer waiting.
        void hungUp.then(() => done(() => answer([])));
      });
    },
  };

  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    // Answers every request, an error included, so nothing is left to wait for.
    const answer = async () => {
      const reply = (status: number, body: unknown) => {
        if (res.writableEnded || res.destroyed) return;
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      const match = /^\/bot([^/]+)\/(\w+)$/.exec(new URL(req.url ?? '/', 'http://fake').pathname);
      if (!match || match[1] !== token) return reply(401, { ok: false, error_code: 401, description: 'Unauthorized' });
      const method = methods[match[2]];
      fake.calls.push(match[2]);
      if (!method) return reply(404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
      try {
        let params: Record<string, any> = {};
        if (raw) params = (req.headers['content-type'] ?? '').includes('json') ? JSON.parse(raw) : Object.fromEntries(new URLSearchParams(raw));
        const hungUp = new Promise<void>((resolve) => res.on('close', () => !res.writableEnded && resolve()));
        const result = await method(params, hungUp);
        if (match[2] === 'getUpdates') fake.polls++;
        reply(200, { ok: true, result });
      } catch (error) {
        const failure = error as FakeFailure;
        reply(failure.error_code ?? 500, { ok: false, ...failure });
      }
    };
    req.on('end', () => void answer());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.apiRoot = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return fake;
}
