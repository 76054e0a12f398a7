import { weightUnitFor } from '@portal/contract';
import type { LabelParty, LabelRequest } from '../../providers/labels/label-provider.ts';
import type { OrderRow } from './repository.ts';

/** One side of an order (sender or receiver) as the provider and the console read it. */
export const partyOf = (row: OrderRow, side: 'from' | 'to'): LabelParty => ({
  name: row[`${side}_name`],
  company: row[`${side}_company`],
  street: row[`${side}_street`],
  street2: row[`${side}_street2`],
  city: row[`${side}_city`],
  state: row[`${side}_state`],
  zip: row[`${side}_zip`],
  country: row[`${side}_country`],
  phone: row[`${side}_phone`],
});

/** What the label provider is asked about an order's label: to buy it, or to refund it. */
export const labelRequestFor = (row: OrderRow): LabelRequest => ({
  orderId: row.id,
  uid: row.label_type_uid,
  serviceName: row.label_type_name,
  design: row.design,
  weight: row.weight,
  weightUnit: weightUnitFor(row.label_type_uid),
  length: row.length,
  width: row.width,
  height: row.height,
  from: partyOf(row, 'from'),
  to: partyOf(row, 'to'),
  createdAt: row.created_at,
  // The label's part of the price: the cost ceiling is the label's, the insurance is bought beside it.
  priceCents: Number(row.price_cents) - Number(row.insurance_cents),
  upstream: row.provider,
  chosen: row.upstream_ref ? { shipmentRef: row.upstream_ref, rateId: row.upstream_rate_id } : null,
  shipDate: row.ship_date,
  reference: row.reference1,
  reference2: row.reference2,
  isReturn: row.is_return === 1,
  insuredCents: row.insured_cents ?? undefined,
});
