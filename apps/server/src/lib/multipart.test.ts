import { afterAll, beforeAll, expect, it } from 'vitest';
import { AMAZON_CSV_PATH } from '@portal/contract';
import { signUp, startTestApp, type TestApp } from '../../test/harness.ts';

let t: TestApp;
let headers: { authorization: string };
beforeAll(async () => {
  t = await startTestApp();
  headers = (await signUp(t.app)).headers;
});
afterAll(() => t?.close());

// The abuse suite (test/abuse.test.ts) found these answered 500: busboy's errors carry no code.
it.each(['/api/v1/order/validatecsv', `/api/v1${AMAZON_CSV_PATH}`])('%s answers a form without a boundary or cut off with a 400', async (url) => {
  const cut = '--b\r\nContent-Disposition: form-data; name="csv"; filename="a"\r\n\r\nxxxx';
  const cases = [
    ['multipart/form-data', 'x'],
    ['multipart/form-data; boundary=b', cut],
    ['multipart/form-data; boundary=b', cut.replace('name="csv"', 'name="pdf"')],
  ];
  for (const [type, payload] of cases) {
    const res = await t.app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': type }, payload });
    expect([res.statusCode, res.json().message]).toEqual([400, expect.stringMatching(/multipart|cut off/)]);
  }
});
