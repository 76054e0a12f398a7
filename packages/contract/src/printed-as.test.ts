import { describe, expect, it } from 'vitest';
import { printedAs, printedDifferently } from './printed-as.ts';

describe('printedAs', () => {
  it('keeps all of Windows-1252: Latin-1, smart quotes, dashes and €', () => {
    for (const text of ['Zoë', 'Ångström', 'Núñez', 'O’Brien Shop – 5', '“Quoted” — €12 … ™', 'Œuvre Š', 'plain 123 #4']) expect(printedAs(text)).toBe(text);
  });

  it('transliterates other scripts to Latin and reads Chinese syllables apart', () => {
    expect(printedAs('Nguyễn Văn Đức')).toBe('Nguyen Van Duc');
    expect(printedAs('李小龙')).toBe('Li Xiao Long');
    expect(printedAs('Владимир Łódź')).toBe('Vladimir Lódz');
  });

  it('drops emoji with their skin tones and joiners, and the spaces they leave', () => {
    expect(printedAs('👍🏽 Joe ❤️ Smith')).toBe('Joe Smith');
    expect(printedAs('👨‍👩‍👧 Family 🇺🇸')).toBe('Family');
    expect(printedAs('🎉')).toBe('');
  });

  it('names the fields that print otherwise than typed', () => {
    const values = { name: '李小龙', company: 'O’Brien', street: '1 Main St', zip: 12345 };
    expect(printedDifferently(values, ['name', 'company', 'street', 'zip'])).toEqual({ name: 'Li Xiao Long' });
    expect(printedDifferently({ name: 'Zoë' }, ['name'])).toEqual({});
  });
});
