import { expect, it } from 'vitest';
import { money, signedMoney } from './format.ts';

// format.ts writes dollars by hand (making an Intl.NumberFormat cost the first page 8-12 ms): it must read as Intl would.
const intl = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });

it('writes every amount in whole cents as Intl.NumberFormat does, a debit with a minus, a credit with a plus', () => {
  const amounts = [0, 0.01, 0.1, 0.3, 0.1 + 0.2, 1, 9.99, 12.4, 999.99, 1000, 1234.5, 99999.99, 100000, 1234567.89, 2 ** 40 / 100];
  for (let cents = 0; cents < 300_000; cents += 7) amounts.push(cents / 100);
  for (const amount of amounts) {
    for (const value of [amount, -amount]) {
      if (Object.is(value, -0)) continue; // Intl writes -$0.00; a balance of nothing is shown as $0.00
      expect(money(value)).toBe(intl.format(value));
      expect(signedMoney(value)).toBe(`${value < 0 ? '-' : '+'}${intl.format(Math.abs(value))}`);
    }
  }
  expect(money(-0)).toBe('$0.00');
  expect(money(-12.4)).toBe('-$12.40');
  expect(signedMoney(250)).toBe('+$250.00');
});
