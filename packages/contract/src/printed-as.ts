import anyAscii from 'any-ascii';

// What a label prints of a name or an address. The label's fonts print Windows-1252 (WinAnsi): Latin-1 and the smart
// quotes, dashes and €, so Zoë, Ångström, Núñez and O’Brien print as typed. Carriers want addresses in Latin script,
// so other scripts are transliterated (Nguyễn Văn Đức → Nguyen Van Duc, 李小龙 → Li Xiao Long), and emoji are dropped.
// Its own entry (`@portal/contract/printed-as`): the transliteration tables are 0.5 MB, which only a page that shows
// a "Prints as" note loads, when a field needs one.

const WIN_ANSI = /^[\x20-\x7e\xa0-\xff€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ]$/u;
/** Pictographs with their skin tones, joiners, variation selectors, keycaps, flags' letters and tags. */
const EMOJI = /^[\p{Extended_Pictographic}\u{1F3FB}-\u{1F3FF}\u200d\ufe0e\ufe0f\u20e3\u{1F1E6}-\u{1F1FF}\u{E0020}-\u{E007F}]$/u;
const HAN = /^\p{Script=Han}$/u;
/** Text every label prints as it is: the fast path for nearly every field. */
const PLAIN = /^[\x20-\x7e]*$/;

export function printedAs(text: string): string {
  if (PLAIN.test(text)) return text;
  let printed = '';
  let afterHan = false;
  for (const char of text) {
    if (WIN_ANSI.test(char)) printed += char;
    else if (!EMOJI.test(char)) {
      const han = HAN.test(char);
      // Chinese names are written without spaces; their syllables are read apart (Li Xiao Long).
      printed += (han && afterHan ? ' ' : '') + anyAscii(char);
      afterHan = han;
      continue;
    }
    afterHan = false;
  }
  return printed.replace(/\s{2,}/g, ' ').trim();
}

/** The fields of `values` that print otherwise than typed, with what they print; empty when all print as typed. */
export function printedDifferently<T extends Record<string, unknown>>(
  values: T,
  fields: readonly (keyof T & string)[],
): Partial<Record<keyof T & string, string>> {
  const changed: Partial<Record<keyof T & string, string>> = {};
  for (const field of fields) {
    const value = values[field];
    if (typeof value !== 'string') continue;
    const printed = printedAs(value);
    if (printed !== value.trim()) changed[field] = printed;
  }
  return changed;
}
