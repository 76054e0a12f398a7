import { describe, expect, it } from 'vitest';
import { submissionKeys } from './idempotency.ts';

describe('the Idempotency-Key of a paid submission', () => {
  it('is kept while the same submission is sent again after an answer that was lost or not final, and new after a final answer or for other values', () => {
    const keys = submissionKeys();
    const order = { labelType: 'priority', Weight: 2 };
    const first = keys.keyFor(order);
    expect(first).toMatch(/^[\x21-\x7e]{1,255}$/);
    keys.answered(new TypeError('Failed to fetch'));
    expect(keys.keyFor({ ...order })).toBe(first);
    keys.answered({ status: 500, message: 'Something went wrong' });
    expect(keys.keyFor(order)).toBe(first);
    keys.answered({ status: 409, message: 'still running' });
    expect(keys.keyFor(order)).toBe(first);
    // Other values: another submission.
    const other = keys.keyFor({ ...order, Weight: 3 });
    expect(other).not.toBe(first);
    keys.answered();
    expect(keys.keyFor({ ...order, Weight: 3 })).not.toBe(other);
    const short = keys.keyFor(order);
    keys.answered({ status: 402, message: 'Insufficient balance' });
    expect(keys.keyFor(order)).not.toBe(short);
    const refused = keys.keyFor(order);
    keys.answered({ status: 502, message: 'the carrier refused the label' });
    expect(keys.keyFor(order)).not.toBe(refused);
  });
});
