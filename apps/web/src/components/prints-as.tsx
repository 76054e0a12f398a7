import { useEffect, useState } from 'react';
import { Form } from 'react-bootstrap';
import { useWatch, type Control, type FieldValues, type Path } from 'react-hook-form';

/** Text of printable ASCII prints as typed; only other text loads the transliteration (0.5 MB) to say what prints. */
const PLAIN = /^[\x20-\x7e]*$/;
let printedAsModule: Promise<typeof import('@portal/contract/printed-as')> | undefined;

/**
 * "Prints as: …" under a name or address field whose text the label prints otherwise (other scripts transliterated,
 * emoji dropped; all of Windows-1252 prints as typed), so the customer sees it before paying.
 */
export function PrintsAs<T extends FieldValues, TOut extends FieldValues>({ control, name }: { control: Control<T, unknown, TOut>; name: Path<T> }) {
  const watched: unknown = useWatch({ control, name });
  const value = typeof watched === 'string' ? watched : '';
  const [result, setResult] = useState<{ of: string; printed: string } | null>(null);
  useEffect(() => {
    if (PLAIN.test(value)) return;
    let current = true;
    printedAsModule ??= import('@portal/contract/printed-as');
    void printedAsModule.then(({ printedAs }) => current && setResult({ of: value, printed: printedAs(value) }));
    return () => {
      current = false;
    };
  }, [value]);
  if (!result || result.of !== value || result.printed === value.trim()) return null;
  return <Form.Text data-testid="prints-as">Prints as: {result.printed || '(nothing: emoji do not print)'}</Form.Text>;
}
