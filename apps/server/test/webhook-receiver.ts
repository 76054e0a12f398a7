import crypto from 'node:crypto';
import http from 'node:http';

export type Received = { headers: http.IncomingHttpHeaders; body: string };

/** A local webhook receiver (127.0.0.1, a free port) that keeps what it receives and answers the statuses it is given, then 200. */
export async function startReceiver(statuses: number[] = []) {
  const received: Received[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      const status = statuses.shift() ?? 200;
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'receiver failed');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hooks/portal`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** What a receiver does with X-Portal-Signature: recompute the HMAC over `${t}.${body}` and compare in constant time. */
export function verifySignature(header: string | string[] | undefined, body: string, secret: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header ?? ''));
  if (!match) return false;
  const expected = crypto.createHmac('sha256', secret).update(`${match[1]}.${body}`).digest();
  return crypto.timingSafeEqual(expected, Buffer.from(match[2], 'hex')) && Math.abs(Date.now() / 1000 - Number(match[1])) < 300;
}
