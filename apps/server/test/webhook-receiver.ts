import crypto from 'node:crypto';
import http from 'node:http';

export type Received = { headers: http.IncomingHttpHeaders; body: string };

/**
 * A local webhook receiver (127.0.0.1, a free port) that keeps what it receives and answers the statuses it is given,
 * then 200; each answer `answerMs` after the request (so deliveries can be in flight when a sender dies).
 */
export async function startReceiver(statuses: number[] = [], { answerMs = 0 } = {}) {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      const status = statuses.shift() ?? 200;
      const answer = () => response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'receiver failed');
      if (answerMs > 0) setTimeout(answer, answerMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hooks/portal`,
    received,
    // Connections a dead sender left open are closed too, or close() would wait for them.
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** What a receiver does with X-Portal-Signature: recompute the HMAC over `${t}.${body}` and compare in constant time. */
export function verifySignature(header: string | string[] | undefined, body: string, secret: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header ?? ''));
  if (!match) return false;
  const expected = crypto.createHmac('sha256', secret).update(`${match[1]}.${body}`).digest();
  return crypto.timingSafeEqual(expected, Buffer.from(match[2], 'hex')) && Math.abs(Date.now() / 1000 - Number(match[1])) < 300;
}
