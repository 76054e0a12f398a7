import { useState } from 'react';
import { Alert, Badge, Button, Spinner, Table } from 'react-bootstrap';
import { QUOTE_EXPIRED, QUOTE_USED, UNAVAILABLE_LABELS, weightFor, weightUnitFor, type LabelType, type Rate, type RatesResponse } from '@portal/contract';
import { ApiError } from '../../api/client.ts';
import { useAskRates, type CreateOrderCall } from '../../api/orders.ts';
import { formatDay, money } from '../../components/format.ts';

/** The package Compare rates prices: weight in WeightUnit, optional dimensions in inches, the two ZIPs, the ship date. */
export type RatesPackage = {
  Weight: number;
  WeightUnit: 'lb' | 'oz';
  Length?: number;
  Width?: number;
  Height?: number;
  FromZip: string;
  ToZip: string;
  ShipDate?: string;
};

const positive = (value: unknown): number | undefined => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) && n > 0 ? n : undefined;
};
const text = (value: unknown) => (typeof value === 'string' ? value.trim().toUpperCase() : '');

/** The form's package as the rates call takes it, or null while the weight or a ZIP is missing (dimensions are optional). */
export function ratesPackage(values: {
  Weight: unknown;
  WeightUnit: 'lb' | 'oz';
  Length?: unknown;
  Width?: unknown;
  Height?: unknown;
  FromZip: unknown;
  ToZip: unknown;
  ShipDate?: unknown;
}): RatesPackage | null {
  const weight = positive(values.Weight);
  const [fromZip, toZip] = [text(values.FromZip), text(values.ToZip)];
  if (weight === undefined || !fromZip || !toZip) return null;
  const shipDate = typeof values.ShipDate === 'string' && values.ShipDate ? values.ShipDate : undefined;
  return {
    Weight: weight,
    WeightUnit: values.WeightUnit,
    Length: positive(values.Length),
    Width: positive(values.Width),
    Height: positive(values.Height),
    FromZip: fromZip,
    ToZip: toZip,
    ShipDate: shipDate,
  };
}

const keyOf = (p: RatesPackage) => JSON.stringify([p.Weight, p.WeightUnit, p.Length, p.Width, p.Height, p.FromZip, p.ToZip, p.ShipDate ?? '']);

/** The asked package with its weight in a type's unit, as choosing that type's row leaves the form. */
const inUnitOf = (asked: RatesPackage, uid: string): RatesPackage => ({
  ...asked,
  Weight: weightFor(uid, asked.Weight, asked.WeightUnit),
  WeightUnit: weightUnitFor(uid),
});

type Compared = { asked: RatesPackage; answer: RatesResponse; expired: boolean };

/** Why the list no longer holds: the package changed since it was asked for, or the server said the quote expired. */
export type OutOfDate = 'changed' | 'expired' | null;

/**
 * Compare rates on a form: asks for the form's package, keeps the answer, and says whether it still holds for the form
 * as it is now. The package may change only by choosing a row (its weight then in the type's unit); any other change of
 * weight, dimensions, ZIPs or ship date drops the quote.
 */
export function useCompareRates(pkg: RatesPackage | null, selectedUid: string) {
  const ask = useAskRates();
  const [compared, setCompared] = useState<Compared | null>(null);
  const holds = (c: Compared) => {
    if (!pkg || c.expired) return false;
    const key = keyOf(pkg);
    return key === keyOf(c.asked) || c.answer.rates.some((r) => r.available && key === keyOf(inUnitOf(c.asked, r.labelType.uid)));
  };
  const current = compared !== null && holds(compared);
  const outOfDate: OutOfDate = compared === null || current ? null : compared.expired ? 'expired' : 'changed';
  // The quote's row of the type the form has selected, when the quote holds and the type can take the package.
  const quoted = current ? compared.answer.rates.find((r) => r.available && r.labelType.uid === selectedUid) : undefined;
  return {
    compared,
    outOfDate,
    busy: ask.isPending,
    /** Asks for rates of the form's package, once it has a weight and both ZIPs. */
    compare() {
      if (!pkg) return;
      const asked = pkg;
      ask.mutate(asked, { onSuccess: (answer) => setCompared({ asked, answer, expired: false }) });
    },
    /** The weight, in the type's unit, the form shows once a row is chosen. */
    weightFor: (uid: string) => (compared ? inUnitOf(compared.asked, uid).Weight : undefined),
    /** The quoted price of the selected type, when the order will be bought under the quote. */
    price: quoted?.price ?? null,
    /**
     * The create body: under the quote when it holds for the selected type (its uid, the quote's id, and the package
     * exactly as quoted, which the server compares), else the order as the form made it.
     */
    body(order: CreateOrderCall): CreateOrderCall {
      if (!quoted || !compared) return order;
      const { asked } = compared;
      return {
        ...order,
        labelType: quoted.labelType.uid,
        quoteId: compared.answer.quoteId,
        Weight: asked.Weight,
        WeightUnit: asked.WeightUnit,
        Length: asked.Length,
        Width: asked.Width,
        Height: asked.Height,
      };
    },
    /** A create refused because the quote expired or was used: the list asks to compare again. */
    refused(error: unknown) {
      if (error instanceof ApiError && error.status === 409 && (error.message === QUOTE_EXPIRED || error.message === QUOTE_USED))
        setCompared((c) => c && { ...c, expired: true });
    },
  };
}
export type CompareRatesState = ReturnType<typeof useCompareRates>;

/** What choosing a row sets in the form: the type (by its _id) and, when it differs, the weight in that type's unit. */
export function chosenFields(rate: Rate, labelTypes: LabelType[], rates: CompareRatesState, weight: unknown): { labelType: string; Weight?: string } | null {
  const type = labelTypes.find((t) => t.uid === rate.labelType.uid);
  if (!type) return null;
  const converted = rates.weightFor(type.uid);
  return converted === undefined || positive(weight) === converted ? { labelType: type._id } : { labelType: type._id, Weight: String(converted) };
}

const daysText = (days: number) => (days === 1 ? '1 day' : `${days} days`);

/** Why a type cannot take the package, in the customer's words, with the server's detail when it says more. */
export function unavailableText(rate: Pick<Rate, 'reason' | 'message'>): string {
  const label = UNAVAILABLE_LABELS[rate.reason ?? 'unavailable'];
  return rate.message && rate.reason !== 'unavailable' ? `${label}: ${rate.message}` : label;
}

type RatesListProps = {
  answer: RatesResponse;
  /** The uid of the type the form has selected (its row is marked chosen). */
  selectedUid: string;
  outOfDate: OutOfDate;
  onChoose: (rate: Rate) => void;
};

/**
 * The rates of one package: every enabled type with our price, carrier and service, days and delivery date; a type
 * that cannot take it greyed with why; the cheapest and fastest marked. Each row a card on a phone (table-stack).
 */
export function RatesList({ answer, selectedUid, outOfDate, onChoose }: RatesListProps) {
  return (
    <div data-testid="rates">
      {answer.sandbox && (
        <Alert variant="info" className="py-2" data-testid="rates-sandbox">
          Sandbox rates: this shop makes test labels, and the days are the sandbox's estimate by distance.
        </Alert>
      )}
      {outOfDate && (
        <Alert variant="warning" className="py-2" data-testid="rates-out-of-date">
          {outOfDate === 'expired'
            ? 'These rates expired. Compare rates again to order at a quoted price.'
            : 'These rates are out of date: the package, ZIPs or ship date changed. Compare rates again.'}
        </Alert>
      )}
      <Table size="sm" className="table-stack align-middle mb-0">
        <thead>
          <tr>
            <th>Service</th>
            <th>Carrier</th>
            <th className="text-end">Price</th>
            <th>Delivery</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {answer.rates.map((rate) => {
            const uid = rate.labelType.uid;
            const chosen = rate.available && uid === selectedUid && !outOfDate;
            return (
              <tr
                key={uid}
                className={rate.available ? (chosen ? 'table-primary' : undefined) : 'table-secondary'}
                data-testid="rate-row"
                data-uid={uid}
                data-available={rate.available}
              >
                {/* One span each for the name and the marks: a phone's card puts them at either end of its title. */}
                <td className="stack-key">
                  <span className="text-start">{rate.labelType.name}</span>
                  <span>
                    {answer.cheapest === uid && (
                      <Badge bg="success" className="ms-2">
                        Cheapest
                      </Badge>
                    )}
                    {answer.fastest === uid && (
                      <Badge bg="info" text="dark" className="ms-2">
                        Fastest
                      </Badge>
                    )}
                  </span>
                </td>
                <td data-label="Carrier">
                  {rate.carrier} · {rate.service}
                </td>
                {rate.available ? (
                  <>
                    <td data-label="Price" className="text-end" data-testid="rate-price">
                      {rate.price === null ? '' : money(rate.price)}
                    </td>
                    <td data-label="Delivery" data-testid="rate-days">
                      <span>
                        {rate.days === null ? 'No estimate' : daysText(rate.days)}
                        {rate.deliveryDate && <span className="text-body-secondary"> · {formatDay(rate.deliveryDate)}</span>}
                      </span>
                    </td>
                    <td className="stack-actions text-end">
                      <Button size="sm" variant={chosen ? 'primary' : 'outline-primary'} disabled={!!outOfDate} onClick={() => onChoose(rate)}>
                        {chosen ? 'Chosen' : 'Choose'}
                      </Button>
                    </td>
                  </>
                ) : (
                  <td colSpan={3} data-label="Unavailable" className="text-body-secondary" data-testid="rate-reason">
                    {unavailableText(rate)}
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </Table>
    </div>
  );
}

type CompareRatesProps = {
  rates: CompareRatesState;
  /** The form has a weight and both ZIPs. */
  ready: boolean;
  selectedUid: string;
  onChoose: (rate: Rate) => void;
};

/** The 'Compare rates' button (once the package and both ZIPs are filled) and the list it answers. */
export function CompareRates({ rates, ready, selectedUid, onChoose }: CompareRatesProps) {
  return (
    <section className="mb-4" aria-label="Compare rates">
      <div className="d-flex flex-wrap align-items-center gap-2 mb-2">
        <Button variant="outline-secondary" disabled={!ready || rates.busy} onClick={rates.compare} data-testid="compare-rates">
          {rates.busy && <Spinner animation="border" size="sm" className="me-2" />}
          Compare rates
        </Button>
        {!ready && <span className="text-body-secondary small">Fill the weight and both ZIPs to compare every service.</span>}
      </div>
      {rates.compared && <RatesList answer={rates.compared.answer} selectedUid={selectedUid} outOfDate={rates.outOfDate} onChoose={onChoose} />}
    </section>
  );
}
