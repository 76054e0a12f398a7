import { describe, expect, it } from 'vitest';
import { describePackage, packageWeightIn } from './packages-values.ts';

const box = { name: 'Small box', weight: 1.5, weightUnit: 'lb' as const, length: 10, width: 8, height: 4 };

describe('a saved package in the units of an order', () => {
  it('converts its weight to the label type unit, to 2 decimals', () => {
    expect(packageWeightIn(box, 'lb')).toBe(1.5);
    expect(packageWeightIn(box, 'oz')).toBe(24);
    expect(packageWeightIn({ weight: 24, weightUnit: 'oz' }, 'lb')).toBe(1.5);
    expect(packageWeightIn({ weight: 5, weightUnit: 'oz' }, 'lb')).toBe(0.31);
    expect(packageWeightIn({ weight: 2400, weightUnit: 'oz' }, 'lb')).toBe(150);
  });

  it('is described with its size only when it has one', () => {
    expect(describePackage(box)).toBe('Small box · 1.5 lb · 10 × 8 × 4 in');
    expect(describePackage({ ...box, weight: 12, weightUnit: 'oz', length: null, width: null, height: null })).toBe('Small box · 12 oz');
  });
});
