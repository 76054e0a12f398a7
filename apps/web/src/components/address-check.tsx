import { useCallback, useState } from 'react';
import { Alert, Button } from 'react-bootstrap';
import { ADDRESS_NOT_CHECKED, type AddressCheckBody, type AddressCheckResponse, type AddressCheckSuggestion } from '@portal/contract';
import { verifyAddress } from '../api/addresses.ts';

type Checked = { key: string; answer: AddressCheckResponse };
const keyOf = (a: Pick<AddressCheckBody, 'street' | 'street2' | 'city' | 'state' | 'zip'>) =>
  [a.street, a.street2 ?? '', a.city, a.state, a.zip].map((part) => String(part ?? '').trim()).join('|');

/** Learned from the first answer: this shop does not verify addresses, so nothing more is asked. */
let shopVerifies = true;

/**
 * Address verification before paying or saving (EASYPOST_VERIFY_ADDRESSES): `mayGoOn` asks the carrier about each
 * address and answers whether to go on. It stops once to show what the carrier says (a corrected address to take, or
 * an address it does not know); pressed again with the same lines, it goes on as typed.
 */
export function useAddressCheck<K extends string>() {
  const [checks, setChecks] = useState<Partial<Record<K, Checked>>>({});
  const [checking, setChecking] = useState(false);
  const clear = useCallback(() => setChecks({}), []);

  async function mayGoOn(addresses: Record<K, AddressCheckBody>): Promise<boolean> {
    if (!shopVerifies) return true;
    const entries = Object.entries(addresses) as [K, AddressCheckBody][];
    if (entries.every(([k, a]) => checks[k]?.key === keyOf(a))) return true;
    setChecking(true);
    try {
      const answers = await Promise.all(entries.map(async ([k, a]) => [k, { key: keyOf(a), answer: await verifyAddress(a) }] as const));
      if (answers.some(([, c]) => c.answer.message === ADDRESS_NOT_CHECKED)) shopVerifies = false;
      setChecks(Object.fromEntries(answers) as Partial<Record<K, Checked>>);
      return answers.every(([, c]) => !c.answer.checked || (c.answer.verified && !c.answer.suggested));
    } finally {
      setChecking(false);
    }
  }

  /** The suggestion of `k` was taken: those lines are the carrier's own, nothing more to ask. */
  function used(k: K, suggested: AddressCheckSuggestion) {
    setChecks((all) => ({ ...all, [k]: { key: keyOf(suggested), answer: { message: '', checked: true, verified: true, suggested: null } } }));
  }

  return { checks, checking, mayGoOn, used, clear };
}

/** What the carrier said of one address: its corrected lines with 'Use suggested address', or that it does not know it. */
export function AddressCheckNote({
  title,
  checked,
  onUse,
  className = 'mb-0',
}: {
  title: string;
  checked: Checked | undefined;
  onUse: (suggested: AddressCheckSuggestion) => void;
  className?: string;
}) {
  const answer = checked?.answer;
  if (!answer?.checked) return null;
  if (answer.suggested) {
    const s = answer.suggested;
    return (
      <Alert variant="info" className={`py-2 ${className}`} data-testid="address-suggestion">
        <div>
          {title}: {answer.message}
        </div>
        <div className="fw-semibold" data-testid="suggested-address">
          {[s.street, s.street2, `${s.city}, ${s.state} ${s.zip}`].filter(Boolean).join(', ')}
        </div>
        <Button size="sm" variant="outline-primary" className="mt-2" onClick={() => onUse(s)}>
          Use suggested address
        </Button>
        <div className="small text-muted mt-1">Or press the button again to keep the address as typed.</div>
      </Alert>
    );
  }
  if (!answer.verified)
    return (
      <Alert variant="warning" className={`py-2 ${className}`} data-testid="address-unverified">
        {title}: the carrier could not verify this address ({answer.message}). Check it, or press the button again to use it as typed.
      </Alert>
    );
  return null;
}
