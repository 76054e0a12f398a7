/** Where a token or a value lies in the file: bytes [start, end). */
export type Span = { start: number; end: number };

const WHITESPACE = new Uint8Array(256);
for (const c of [0, 9, 10, 12, 13, 32]) WHITESPACE[c] = 1;
const DELIMITER = new Uint8Array(256);
for (const c of '()<>[]{}/%') DELIMITER[c.charCodeAt(0)] = 1;
const [LT, GT, PAREN, CLOSE_PAREN, BACKSLASH, BRACKET, CLOSE_BRACKET, SLASH, PERCENT] = [...'<>()\\[]/%'].map((c) => c.charCodeAt(0));
const DIGITS = /^\d+$/;

/**
 * A PDF read straight from its bytes: its objects by number, each as the span of its value and, for a
 * stream, of its data. Reading needs a plain file (one cross-reference table, no object streams, no
 * later updates, no encryption), as label renderers write them; any other file is first written plain
 * by pdf-lib (`rewrittenPlain`). Objects are never turned into a tree: the merged PDF copies their bytes and
 * only rewrites references, which costs a fraction of parsing every object.
 */
export class PlainPdf {
  private readonly text: string;
  private readonly offsets = new Map<number, number>();
  readonly root: number;

  private constructor(readonly bytes: Uint8Array) {
    this.text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    const startxref = this.text.lastIndexOf('startxref');
    if (startxref < 0) throw new Error('no startxref');
    let at = Number(this.tokenText(this.token(startxref + 9)));
    if (this.tokenText(this.token(at)) !== 'xref') throw new Error('not a plain cross-reference table');
    at = this.token(at).end;
    // Subsections: "first count", then 20-byte entries "offset generation n|f".
    for (;;) {
      const first = this.token(at);
      if (this.tokenText(first) === 'trailer') {
        at = first.end;
        break;
      }
      if (!DIGITS.test(this.tokenText(first))) throw new Error('bad cross-reference table');
      const count = this.token(first.end);
      let entry = this.token(count.end).start;
      for (let i = 0; i < Number(this.tokenText(count)); i++, entry += 20) {
        if (this.text[entry + 17] === 'n') this.offsets.set(Number(this.tokenText(first)) + i, Number(this.text.slice(entry, entry + 10)));
      }
      at = entry;
    }
    const trailer = this.entries(this.token(at));
    if (trailer.has('Prev') || trailer.has('XRefStm') || trailer.has('Encrypt')) throw new Error('not a plain file');
    this.root = this.refOf(trailer.get('Root'));
  }

  /** Reads a plain file; null for any other (or no PDF at all). */
  static read(bytes: Uint8Array): PlainPdf | null {
    try {
      return new PlainPdf(bytes);
    } catch {
      return null;
    }
  }

  /** The token starting at or after `pos`, whitespace and comments skipped (start = end at the end of the file). */
  token(pos: number): Span {
    const b = this.bytes;
    for (;;) {
      while (pos < b.length && WHITESPACE[b[pos]]) pos++;
      if (b[pos] !== PERCENT) break;
      while (pos < b.length && b[pos] !== 10 && b[pos] !== 13) pos++;
    }
    const start = pos;
    const c = b[pos];
    if (pos >= b.length) return { start, end: pos };
    if (c === PAREN) {
      for (let depth = 0; pos < b.length; pos++) {
        if (b[pos] === BACKSLASH) pos++;
        else if (b[pos] === PAREN) depth++;
        else if (b[pos] === CLOSE_PAREN && --depth === 0) return { start, end: pos + 1 };
      }
      throw new Error('unterminated string');
    }
    if (c === LT || c === GT) {
      if (b[pos + 1] === c) return { start, end: pos + 2 };
      if (c === GT) throw new Error('stray >');
      const close = b.indexOf(GT, pos);
      if (close < 0) throw new Error('unterminated hex string');
      return { start, end: close + 1 };
    }
    if (DELIMITER[c] && c !== SLASH) return { start, end: pos + 1 };
    pos++;
    while (pos < b.length && !WHITESPACE[b[pos]] && !DELIMITER[b[pos]]) pos++;
    return { start, end: pos };
  }

  tokenText(token: Span): string {
    return this.text.slice(token.start, token.end);
  }

  /** The reference 'N G R' that starts with `token`, or null. */
  private refAt(token: Span): { number: number; end: number } | null {
    if (!DIGITS.test(this.tokenText(token))) return null;
    const generation = this.token(token.end);
    if (!DIGITS.test(this.tokenText(generation))) return null;
    const r = this.token(generation.end);
    return this.tokenText(r) === 'R' ? { number: Number(this.tokenText(token)), end: r.end } : null;
  }

  /** '<<' or '[' (a hex string starts with '<' too). */
  private opens(t: Span): boolean {
    const c = this.bytes[t.start];
    return c === BRACKET || (c === LT && this.bytes[t.start + 1] === LT);
  }

  private closes(t: Span): boolean {
    const c = this.bytes[t.start];
    return c === CLOSE_BRACKET || (c === GT && this.bytes[t.start + 1] === GT);
  }

  /** The span of the value whose first token is `first`. */
  private value(first: Span): Span {
    const c = this.bytes[first.start];
    if (this.opens(first)) {
      let depth = 1;
      let t = first;
      while (depth > 0) {
        t = this.token(t.end);
        if (t.start === t.end) throw new Error('unterminated dictionary or array');
        if (this.opens(t)) depth++;
        else if (this.closes(t)) depth--;
      }
      return { start: first.start, end: t.end };
    }
    if (c >= 0x30 && c <= 0x39) {
      const ref = this.refAt(first);
      if (ref) return { start: first.start, end: ref.end };
    }
    return first;
  }

  /** A dictionary's entries by key (without the slash), each the span of its value. */
  entries(open: Span): Map<string, Span> {
    if (this.tokenText(open) !== '<<') throw new Error('not a dictionary');
    const entries = new Map<string, Span>();
    for (let key = this.token(open.end); this.tokenText(key) !== '>>';) {
      if (this.bytes[key.start] !== SLASH) throw new Error('dictionary key expected');
      const value = this.value(this.token(key.end));
      entries.set(this.text.slice(key.start + 1, key.end), value);
      key = this.token(value.end);
    }
    return entries;
  }

  /** An array's items, each the span of its value. */
  items(array: Span): Span[] {
    const items: Span[] = [];
    for (let t = this.token(array.start + 1); this.bytes[t.start] !== CLOSE_BRACKET;) {
      if (t.start === t.end) throw new Error('unterminated array');
      const item = this.value(t);
      items.push(item);
      t = this.token(item.end);
    }
    return items;
  }

  /** The object number a value refers to. */
  refOf(value: Span | undefined): number {
    const ref = value && this.refAt(this.token(value.start));
    if (!ref) throw new Error('reference expected');
    return ref.number;
  }

  /** A value as written, or the value of the object it refers to. */
  resolve(value: Span): Span {
    const ref = this.refAt(this.token(value.start));
    return ref ? this.object(ref.number).value : value;
  }

  /** Whether object `number` is in the file (a reference to one that is not stands for null). */
  has(number: number): boolean {
    return this.offsets.has(number);
  }

  /** Object `number`: its value and, for a stream, its data. */
  object(number: number): { value: Span; stream: Span | null } {
    const offset = this.offsets.get(number);
    if (offset === undefined) throw new Error(`object ${number} is not in the cross-reference table`);
    const head = this.token(offset);
    const generation = this.token(head.end);
    const obj = this.token(generation.end);
    if (this.tokenText(head) !== String(number) || this.tokenText(obj) !== 'obj')
      throw new Error(`object ${number} is not where the cross-reference table says`);
    const value = this.value(this.token(obj.end));
    const next = this.token(value.end);
    if (this.tokenText(next) !== 'stream') return { value, stream: null };
    // The data starts after the end of the line that 'stream' ends and is /Length bytes long.
    const start = next.end + (this.bytes[next.end] === 13 ? 2 : 1);
    const length = Number(this.tokenText(this.resolve(this.entries(this.token(value.start)).get('Length')!)));
    if (!Number.isInteger(length) || length < 0 || this.tokenText(this.token(start + length)) !== 'endstream')
      throw new Error(`object ${number} has a wrong /Length`);
    return { value, stream: { start, end: start + length } };
  }

  /** Copies a span's bytes to `out` with each reference 'N G R' in it replaced by what `each` answers for N. */
  rewriteRefs(span: Span, each: (number: number) => string, out: Uint8Array[]): void {
    let copied = span.start;
    for (let t = this.token(span.start); t.end <= span.end && t.start < t.end;) {
      const ref = this.bytes[t.start] >= 0x30 && this.bytes[t.start] <= 0x39 ? this.refAt(t) : null;
      if (ref && ref.end <= span.end) {
        out.push(this.bytes.subarray(copied, t.start), Buffer.from(each(ref.number), 'latin1'));
        copied = ref.end;
        t = this.token(ref.end);
      } else {
        t = this.token(t.end);
      }
    }
    out.push(this.bytes.subarray(copied, span.end));
  }
}

/** Any PDF written plain again by pdf-lib, for a file PlainPdf cannot read as it is. Throws for what is no PDF. */
export async function rewrittenPlain(bytes: Uint8Array): Promise<PlainPdf> {
  // pdf-lib is loaded the first time a label needs it (about 10 MB of every process otherwise).
  const { PDFDocument, ParseSpeeds } = await import('pdf-lib');
  const document = await PDFDocument.load(bytes, { parseSpeed: ParseSpeeds.Fastest, updateMetadata: false });
  const plain = PlainPdf.read(await document.save({ useObjectStreams: false, updateFieldAppearances: false }));
  if (!plain) throw new Error('The PDF could not be read');
  return plain;
}
