import crypto from 'node:crypto';
import http from 'node:http';

/** The Greenfield InvoiceData fields the fake keeps (swagger.template.invoices.json). */
export type FakeInvoice = {
  id: string;
  storeId: string;
  amount: string;
  paidAmount: string;
  currency: string;
  type: 'Standard' | 'TopUp';
  checkoutLink: string;
  createdTime: number;
  expirationTime: number;
  monitoringExpiration: number;
  status: 'New' | 'Processing' | 'Expired' | 'Invalid' | 'Settled';
  additionalStatus: string;
  metadata: Record<string, unknown>;
  checkout: Record<string, unknown>;
  archived: boolean;
};

export type FakeBtcpay = {
  url: string;
  storeId: string;
  apiKey: string;
  webhookSecret: string;
  invoices: Map<string, FakeInvoice>;
  /** Every request it served, as "METHOD path". */
  requests: string[];
  /** Where it delivers webhooks, like the store's webhook setting. */
  webhookUrl: string;
  /** While true, every API call answers 503. */
  unavailable: boolean;
  setStatus(id: string, status: FakeInvoice['status']): void;
  /** Sends a signed webhook of this type for the invoice, as BTCPay does; returns the receiver's status. */
  deliver(
    id: string,
    type: string,
    options?: { secret?: string; extra?: Record<string, unknown> },
  ): Promise<{ status: number; body: string; payload: string; signature: string }>;
  close(): Promise<void>;
};

/**
 * A local stand-in for BTCPay Server's Greenfield API, enough for an invoice's life: create
 * (POST /api/v1/stores/{storeId}/invoices, `Authorization: token <key>`, amount a decimal string),
 * get (GET .../invoices/{id}), and webhooks signed `BTCPay-Sig: sha256=<HMAC of the body>`.
 */
export async function startFakeBtcpay(options: { storeId?: string; apiKey?: string; webhookSecret?: string } = {}): Promise<FakeBtcpay> {
  const storeId = options.storeId ?? 'StoreFake123';
  const apiKey = options.apiKey ?? 'fake-greenfield-api-key';
  const webhookSecret = options.webhookSecret ?? 'fake-webhook-secret';
  const invoices = new Map<string, FakeInvoice>();
  const requests: string[] = [];
  let baseUrl = '';

  const send = (res: http.ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };

  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      requests.push(`${req.method} ${path}`);
      if (fake.unavailable) return send(res, 503, { code: 'service-unavailable', message: 'Service unavailable' });
      if (req.headers.authorization !== `token ${apiKey}`)
        return send(res, 401, { code: 'unauthenticated', message: 'Authentication is required for accessing this endpoint' });
      const match = /^\/api\/v1\/stores\/([^/]+)\/invoices(?:\/([^/]+))?$/.exec(path);
      if (!match) return send(res, 404);
      if (match[1] !== storeId) return send(res, 403);
      if (req.method === 'POST' && !match[2]) {
        let body: Record<string, any>;
        try {
          body = JSON.parse(raw);
        } catch {
          return send(res, 400, [{ path: '', message: 'Invalid JSON' }]);
        }
        if (body.amount !== undefined && body.amount !== null && (typeof body.amount !== 'string' || !/^\d+(\.\d+)?$/.test(body.amount))) {
          return send(res, 400, [{ path: 'amount', message: 'amount must be a decimal string' }]);
        }
        const id = crypto.randomBytes(16).toString('base64url').replace(/[-_]/g, 'x').slice(0, 22);
        const now = Math.floor(Date.now() / 1000);
        const invoice: FakeInvoice = {
          id,
          storeId,
          amount: body.amount ?? '0',
          paidAmount: '0',
          currency: body.currency ?? 'USD',
          type: body.amount ? 'Standard' : 'TopUp',
          checkoutLink: `${baseUrl}/i/${id}`,
          createdTime: now,
          expirationTime: now + 60 * (body.checkout?.expirationMinutes ?? 15),
          monitoringExpiration: now + 60 * 60 * 24,
          status: 'New',
          additionalStatus: 'None',
          metadata: body.metadata ?? {},
          checkout: body.checkout ?? {},
          archived: false,
        };
        invoices.set(id, invoice);
        return send(res, 200, invoice);
      }
      if (req.method === 'GET' && match[2]) {
        const invoice = invoices.get(match[2]);
        return invoice ? send(res, 200, invoice) : send(res, 404, { code: 'invoice-not-found', message: 'The invoice was not found' });
      }
      return send(res, 405);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  const fake: FakeBtcpay = {
    url: baseUrl,
    storeId,
    apiKey,
    webhookSecret,
    invoices,
    requests,
    webhookUrl: '',
    unavailable: false,
    setStatus(id, status) {
      const invoice = invoices.get(id);
      if (!invoice) throw new Error(`fake BTCPay has no invoice ${id}`);
      invoice.status = status;
      if (status === 'Settled') invoice.paidAmount = invoice.amount;
    },
    async deliver(id, type, opts = {}) {
      const payload = JSON.stringify({
        deliveryId: crypto.randomUUID(),
        webhookId: 'FakeWebhook1',
        originalDeliveryId: crypto.randomUUID(),
        isRedelivery: false,
        type,
        timestamp: Math.floor(Date.now() / 1000),
        storeId,
        invoiceId: id,
        ...opts.extra,
      });
      const signature = `sha256=${crypto
        .createHmac('sha256', opts.secret ?? webhookSecret)
        .update(payload, 'utf8')
        .digest('hex')}`;
      const response = await fetch(fake.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'BTCPay-Sig': signature },
        body: payload,
      });
      return { status: response.status, body: await response.text(), payload, signature };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return fake;
}
