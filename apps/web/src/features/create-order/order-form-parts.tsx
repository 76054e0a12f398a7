import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { FieldError, UseFormRegisterReturn } from 'react-hook-form';
import { Button, Col, Form, InputGroup, Row, Spinner } from 'react-bootstrap';
import {
  USPS_V9_DIMENSION,
  countryFor,
  templateRequired,
  weightOutsideTiers,
  type CreateOrderBody,
  type CreateOrderInput,
  type LabelType,
  type OrderIssue,
  type SavedPackage,
  packageWeightIn,
} from '@portal/contract';
import { priceQuery } from '../../api/catalog.ts';
import { ApiError } from '../../api/client.ts';
import { useCurrentUser } from '../../api/current-user.ts';
import { orderIssues, useCreateOrder, type CreateOrderCall } from '../../api/orders.ts';
import { CHOOSE_TYPE_FOR_PRICE, ChosenTypeText, LabelTypeSelect, TemplateSelect } from '../../components/label-type-selects.tsx';
import { money } from '../../components/format.ts';
import { PackagePicker } from '../../components/package-picker.tsx';
import { FORM_SENT } from '../../components/unsaved-input.tsx';

/**
 * The price of the chosen type and weight, looked up again whenever either changes and only when
 * both are set and the weight is above zero; a failed lookup is logged and the price is 0.
 */
export function useOrderPrice(labelType: string, weight: unknown): number {
  const amount = typedNumber(weight);
  const enabled = !!labelType && Number.isFinite(amount) && amount > 0;
  const query = useQuery({
    ...priceQuery(labelType, amount),
    enabled,
    placeholderData: keepPreviousData,
  });
  useEffect(() => {
    if (query.error) console.error('Failed to look up the price', query.error);
  }, [query.error]);
  return enabled && !query.isError ? (query.data?.price ?? 0) : 0;
}

/** A number typed into a form (text or a number), or NaN. */
const typedNumber = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : typeof value === 'number' ? value : NaN);

/**
 * The price of insuring the declared value typed (Insurance) with the chosen type and weight, from the server's rule:
 * 0 without a value; the server's reason when it does not insure it (above the shop's limit, or none sold).
 */
export function useInsurancePrice(labelType: string, weight: unknown, insurance: unknown): { price: number; error: string | null } {
  const amount = typedNumber(weight);
  const value = typedNumber(insurance);
  const enabled = !!labelType && amount > 0 && value > 0;
  const query = useQuery({ ...priceQuery(labelType, amount, value), enabled, placeholderData: keepPreviousData });
  if (!enabled) return { price: 0, error: null };
  if (query.isError) return { price: 0, error: query.error instanceof ApiError ? query.error.message : 'The insurance could not be priced' };
  return { price: query.data?.insurance ?? 0, error: null };
}

/**
 * The declared value to insure (optional), with what insuring it costs on top of the label, or why it is not insured.
 * Both forms show it under the ship date and references.
 */
export function InsuranceField({
  idPrefix,
  field,
  error,
  insurance,
}: {
  idPrefix: string;
  field: UseFormRegisterReturn;
  error?: string;
  insurance: { price: number; error: string | null };
}) {
  const problem = error ?? insurance.error ?? undefined;
  return (
    <Row className="g-3 mb-3">
      <Col sm={4}>
        <Form.Group controlId={`${idPrefix}-insurance`}>
          <Form.Label>Insurance</Form.Label>
          <InputGroup hasValidation>
            <InputGroup.Text>$</InputGroup.Text>
            <Form.Control inputMode="decimal" placeholder="Optional: the value of the contents" isInvalid={!!problem} {...field} />
            <Form.Control.Feedback type="invalid">{problem}</Form.Control.Feedback>
          </InputGroup>
          <Form.Text data-testid={`${idPrefix}-insurance-price`}>
            {insurance.price > 0 ? `Insurance costs ${money(insurance.price)}, added to the label's price` : 'Insures the parcel against loss and damage'}
          </Form.Text>
        </Form.Group>
      </Col>
    </Row>
  );
}

/** One side (From or To) of an order, as the forms gather it. */
export type OrderSide = { Name: string; Company?: string; Street: string; Street2?: string; City: string; State: string; Zip: string; Phone?: string };

export const EMPTY_SIDE: OrderSide = { Name: '', Company: '', Street: '', Street2: '', City: '', State: '', Zip: '', Phone: '' };

/** What the two tabs share: the form a user leaves hands it to the other (type, template, weight and both addresses). */
export type OrderDraft = { labelType: string; design: string; Weight: string; from: OrderSide; to: OrderSide };
export const emptyDraft = (): OrderDraft => ({ labelType: '', design: '', Weight: '', from: { ...EMPTY_SIDE }, to: { ...EMPTY_SIDE } });
export const draftText = (value: unknown): string => (typeof value === 'string' ? value : value == null ? '' : String(value));

/**
 * The create payload for the chosen type: design only for priority, Country fixed by the type
 * (Canada for UPS, United States otherwise), phone only for fedex_ground, 15 x 15 x 15 for uspsv9.
 */
export function orderPayload(
  base: Pick<
    CreateOrderBody,
    'labelType' | 'design' | 'Weight' | 'Length' | 'Width' | 'Height' | 'ShipDate' | 'Reference' | 'Reference2' | 'ToEmail' | 'Insurance'
  >,
  uid: string,
  from: OrderSide,
  to: OrderSide,
): CreateOrderBody {
  const country = countryFor(uid);
  const phone = uid === 'fedex_ground';
  const v9 = uid === 'uspsv9';
  const side = <P extends 'From' | 'To'>(prefix: P, s: OrderSide) =>
    ({
      [`${prefix}Name`]: s.Name,
      [`${prefix}Company`]: s.Company ?? '',
      [`${prefix}Street`]: s.Street,
      [`${prefix}Street2`]: s.Street2 ?? '',
      [`${prefix}City`]: s.City,
      [`${prefix}State`]: s.State,
      [`${prefix}Zip`]: s.Zip,
      [`${prefix}Country`]: country,
      [`${prefix}Phone`]: phone ? (s.Phone ?? '') : '',
    }) as Record<`${P}${'Name' | 'Company' | 'Street' | 'Street2' | 'City' | 'State' | 'Zip' | 'Country' | 'Phone'}`, string>;
  return {
    labelType: base.labelType,
    design: templateRequired(uid) ? base.design : undefined,
    Weight: base.Weight,
    ...(v9
      ? { Length: USPS_V9_DIMENSION, Width: USPS_V9_DIMENSION, Height: USPS_V9_DIMENSION }
      : { Length: base.Length || undefined, Width: base.Width || undefined, Height: base.Height || undefined }),
    ...side('From', from),
    ...side('To', to),
    // Ship date and reference lines: an empty date is today.
    ShipDate: base.ShipDate || undefined,
    Reference: base.Reference ?? '',
    Reference2: base.Reference2 ?? '',
    // The recipient's email for status mails (sent when Account Setting turns them on); empty: none.
    ToEmail: base.ToEmail || undefined,
    // The declared value to insure; empty: none.
    Insurance: base.Insurance || undefined,
  };
}

export type { OrderIssue };

const orderChecks = () => import('./order-checks.ts');

/** The contract's checks of an order: every field, and the rules of the type (template, states, ZIPs, phones) once it is chosen. */
export async function checkOrder(payload: CreateOrderBody, uid: string): Promise<{ ok: true; order: CreateOrderInput } | { ok: false; issues: OrderIssue[] }> {
  return (await orderChecks()).orderIssues(payload as Record<string, unknown>, uid || undefined);
}

/** The contract's checks for a form that uses them while it renders: null until their chunk has come. */
export function useOrderChecks(): Awaited<ReturnType<typeof orderChecks>> | null {
  const [checks, setChecks] = useState<Awaited<ReturnType<typeof orderChecks>> | null>(null);
  useEffect(() => {
    let mounted = true;
    void orderChecks().then((loaded) => mounted && setChecks(loaded));
    return () => {
      mounted = false;
    };
  }, []);
  return checks;
}

/** Issues keyed by form field, as a resolver answers them; several about one field are shown together. */
export function fieldErrors(issues: OrderIssue[], fieldFor: (field: string) => string = (f) => f): Record<string, FieldError> {
  const errors: Record<string, FieldError> = {};
  for (const issue of issues) {
    if (issue.field === null) continue;
    const field = fieldFor(issue.field);
    const before = errors[field]?.message;
    errors[field] = { type: 'validate', message: before ? `${before}; ${issue.message}` : issue.message };
  }
  return errors;
}

/**
 * Sends the order once: a submit in progress blocks a second; success returns to '/'. A 400 marks
 * every field it names (onIssues) beside its toast; a submit's onRefused hears of every refusal (a quote that
 * expired). The toasts and the balance are the call's own.
 */
export function useSubmitOrder(onIssues: (issues: OrderIssue[]) => void) {
  const navigate = useNavigate();
  const create = useCreateOrder();
  const submit = (order: CreateOrderCall, price: number, onRefused?: (error: unknown) => void) =>
    create.mutate(
      { order, price },
      {
        onSuccess: () => void navigate('/', { state: FORM_SENT }),
        onError: (error) => {
          const issues = orderIssues(error);
          if (issues.length > 0) onIssues(issues);
          onRefused?.(error);
        },
      },
    );
  return { submit, busy: create.isPending };
}

type LabelTypeFieldsProps = {
  idPrefix: string;
  labelTypes: LabelType[];
  selected: LabelType | undefined;
  fields: Record<'labelType' | 'design' | 'Weight' | Dimension, UseFormRegisterReturn>;
  errors: Partial<Record<'labelType' | 'design' | 'Weight' | Dimension, { message?: string }>>;
  /** The weight as typed, to say why it has no price. */
  weight: unknown;
  /** A saved package chosen: the form takes its weight (in the type's unit) and dimensions. */
  onPickPackage: (saved: SavedPackage) => void;
};

type Dimension = 'Length' | 'Width' | 'Height';
const DIMENSIONS: Dimension[] = ['Length', 'Width', 'Height'];

/** What a saved package fills in an order form: its weight in the type's unit, and its dimensions ('' when it has none). */
export const packageFields = (saved: SavedPackage, unit: 'lb' | 'oz'): Record<'Weight' | Dimension, string> => ({
  Weight: String(packageWeightIn(saved, unit)),
  Length: saved.length === null ? '' : String(saved.length),
  Width: saved.width === null ? '' : String(saved.width),
  Height: saved.height === null ? '' : String(saved.height),
});

/** Type, Template (priority only) and Weight, with why a weight outside every tier costs $0.00; the fixed 15 x 15 x 15 box for USPS v9. */
export function LabelTypeFields({ idPrefix, labelTypes, selected, fields, errors, weight, onPickPackage }: LabelTypeFieldsProps) {
  const uid = selected?.uid ?? '';
  const amount = draftText(weight).trim() === '' ? NaN : Number(weight);
  const outside = selected && Number.isFinite(amount) ? weightOutsideTiers(selected, amount) : null;
  return (
    <Row className="g-3 mb-3">
      {/* Wide enough that the longest choice ('USPS Priority Mail V9 (15x15x15) · $7.25–$23.50') is not cut short. */}
      <Col md={12} lg={8}>
        <Form.Group controlId={`${idPrefix}-type`}>
          <Form.Label>Type</Form.Label>
          <LabelTypeSelect labelTypes={labelTypes} isInvalid={!!errors.labelType} {...fields.labelType} />
          <Form.Control.Feedback type="invalid">{errors.labelType?.message}</Form.Control.Feedback>
          <ChosenTypeText type={selected} />
        </Form.Group>
      </Col>
      {templateRequired(uid) && (
        <Col md={6} lg={4}>
          <Form.Group controlId={`${idPrefix}-template`}>
            <Form.Label>Template</Form.Label>
            <TemplateSelect isInvalid={!!errors.design} {...fields.design} />
            <Form.Control.Feedback type="invalid">{errors.design?.message}</Form.Control.Feedback>
          </Form.Group>
        </Col>
      )}
      <Col md={6} lg={4}>
        <Form.Group controlId={`${idPrefix}-weight`}>
          <Form.Label>Weight</Form.Label>
          <InputGroup hasValidation>
            <Form.Control type="number" inputMode="decimal" min={0} step="any" placeholder="Weight" isInvalid={!!errors.Weight} {...fields.Weight} />
            <InputGroup.Text>{selected?.weightUnit ?? 'lb'}</InputGroup.Text>
            <Form.Control.Feedback type="invalid">{errors.Weight?.message}</Form.Control.Feedback>
          </InputGroup>
          {outside ? (
            <Form.Text className="text-danger" data-testid="weight-outside">
              {outside}
            </Form.Text>
          ) : (
            selected && (
              <Form.Text>
                At most {selected.maxWeight} {selected.weightUnit}
              </Form.Text>
            )
          )}
        </Form.Group>
      </Col>
      <Col md={6} lg={4}>
        <PackagePicker id={`${idPrefix}-package`} className="" onPick={onPickPackage} />
      </Col>
      {/* Optional dimensions (Compare rates checks each carrier's size); USPS v9 is always the 15-inch box. */}
      <Col xs={12}>
        <Row className="g-3" data-testid={uid === 'uspsv9' ? 'v9-dimensions' : 'dimensions'}>
          {DIMENSIONS.map((dimension) => (
            <Col xs={4} key={dimension}>
              <Form.Group controlId={`${idPrefix}-${dimension.toLowerCase()}`}>
                <Form.Label>{dimension}</Form.Label>
                <InputGroup hasValidation>
                  {uid === 'uspsv9' ? (
                    <Form.Control value={USPS_V9_DIMENSION} readOnly />
                  ) : (
                    <Form.Control
                      type="number"
                      inputMode="decimal"
                      min={0}
                      step="any"
                      placeholder="Optional"
                      isInvalid={!!errors[dimension]}
                      {...fields[dimension]}
                    />
                  )}
                  <InputGroup.Text>in</InputGroup.Text>
                  <Form.Control.Feedback type="invalid">{errors[dimension]?.message}</Form.Control.Feedback>
                </InputGroup>
              </Form.Group>
            </Col>
          ))}
        </Row>
      </Col>
    </Row>
  );
}

/**
 * Why the chosen type cannot be ordered at this weight, as the Create button says it instead of a price: no weight
 * yet, more than the type's maximum, or a weight none of its tiers holds; null when it has a price (or no type is chosen).
 */
export function weightProblem(selected: Pick<LabelType, 'name' | 'uid' | 'maxWeight' | 'weightUnit' | 'prices'> | undefined, weight: unknown): string | null {
  if (!selected) return null;
  const text = draftText(weight).trim();
  const amount = text === '' ? NaN : Number(text);
  if (!Number.isFinite(amount) || amount <= 0) return 'Enter a weight';
  if (amount > selected.maxWeight) return `Too heavy for ${selected.name}: at most ${selected.maxWeight} ${selected.weightUnit}`;
  return weightOutsideTiers(selected, amount);
}

/**
 * 'Create Order $price', disabled with a spinner while the order is being sent, and the balance beside it.
 * Before a type is chosen there is no price to show, and it says so instead of '$0.00'; with a type but a weight it
 * has no price for, it says what is wrong with the weight and is disabled.
 */
export function SubmitOrderButton({ price, busy, selected, weight }: { price: number; busy: boolean; selected: LabelType | undefined; weight: unknown }) {
  const { user } = useCurrentUser();
  const problem = weightProblem(selected, weight);
  return (
    <div className="d-flex flex-wrap align-items-center gap-3">
      <Button type="submit" size="lg" disabled={busy || problem !== null} data-testid="create-order">
        {busy && <Spinner animation="border" size="sm" className="me-2" />}
        {!selected ? CHOOSE_TYPE_FOR_PRICE : (problem ?? `Create Order ${money(price)}`)}
      </Button>
      {user && (
        <span className={price > user.balance ? 'text-danger' : 'text-muted'} data-testid="order-balance">
          Balance: {money(user.balance)}
        </span>
      )}
    </div>
  );
}
