import { useEffect, useState } from 'react';
import { Form } from 'react-bootstrap';
import { useWatch, type Control, type FieldValues, type Path } from 'react-hook-form';

/** Text of printable ASCII prints as typed; only other text loads the transliteration (0.5 MB) to say what prints. */
const PLAIN = /^[\x20-\x7e\r\n]*$/;
let printedAsModule: Promise<typeof import('@portal/contract/printed-as')> | undefined;

const NOTHING = '(nothing: emoji do not print)';

/** What the label prints of the parts of `text` (each line, or the whole) that print otherwise than typed; null when all print as typed. */
function noteOf(text: string, printedAs: (text: string) => string, lines: boolean): string | null {
  const changed = (lines ? text.split('\n') : [text])
    .map((part) => ({ part, printed: printedAs(part) }))
    .filter(({ part, printed }) => printed !== part.trim());
  return changed.length === 0 ? null : changed.map(({ printed }) => printed || NOTHING).join(' / ');
}

/**
 * "Prints as: …" under a name or address field whose text the label prints otherwise (other scripts transliterated,
 * emoji dropped; all of Windows-1252 prints as typed), so the customer sees it before paying. `lines`: a field of
 * several lines (Quick Order's address text) is read line by line, and only the lines that print otherwise are named.
 */
export function PrintsAs<T extends FieldValues, TOut extends FieldValues>({
  control,
  name,
  lines = false,
}: {
  control: Control<T, unknown, TOut>;
  name: Path<T>;
  lines?: boolean;
}) {
  const watched: unknown = useWatch({ control, name });
  const value = typeof watched === 'string' ? watched : '';
  const [result, setResult] = useState<{ of: string; note: string | null } | null>(null);
  useEffect(() => {
    if (PLAIN.test(value)) return;
    let current = true;
    printedAsModule ??= import('@portal/contract/printed-as');
    void printedAsModule.then(({ printedAs }) => current && setResult({ of: value, note: noteOf(value, printedAs, lines) }));
    return () => {
      current = false;
    };
  }, [value, lines]);
  if (!result || result.of !== value || result.note === null) return null;
  return (
    <Form.Text className="d-block" data-testid="prints-as">
      Prints as: {result.note}
    </Form.Text>
  );
}
