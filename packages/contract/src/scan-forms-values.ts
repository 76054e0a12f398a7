/** A SCAN form's states: asked of the upstream (creating), made (created: its PDF can be downloaded) or failed. */
export const SCAN_FORM_STATUSES = ['creating', 'created', 'failed'] as const;
export type ScanFormStatus = (typeof SCAN_FORM_STATUSES)[number];
export const SCAN_FORM_STATUS_LABELS: Record<ScanFormStatus, string> = { creating: 'Creating', created: 'Ready', failed: 'Failed' };

/** Order ids one request may name (a bulk order's labels are named by its id instead). */
export const SCAN_FORM_IDS_MAX = 1000;
/** Labels on one form: a larger group is split into forms of at most this many. */
export const SCAN_FORM_MAX_LABELS = 1000;

/** How a form is named to people: SF- and the first 8 characters of its id. */
export const scanFormName = (id: string) => `SF-${id.slice(0, 8).toUpperCase()}`;

export const SCAN_FORM_NOT_FOUND = 'SCAN form not found';
export const SCAN_FORM_NOT_READY = 'The SCAN form is not ready yet';
export const SCAN_FORM_NO_LABELS = 'None of these labels can go on a SCAN form';
export const scanFormsMade = (forms: number, labels: number) =>
  `${forms} SCAN form${forms === 1 ? '' : 's'} asked for ${labels} label${labels === 1 ? '' : 's'}`;

/** Why a label cannot go on a SCAN form. */
export const SCAN_FORM_REFUSALS = {
  notFound: 'No such order of yours',
  notCompleted: 'Only a completed label can go on a SCAN form',
  returnLabel: 'A return label is handed over by its receiver, not on your SCAN form',
  refunded: 'A refunded label (or one with a refund asked) cannot go on a SCAN form',
  scanned: 'The carrier has already scanned this label',
  shipDatePassed: (day: string) => `Its ship date (${day}) has passed: a SCAN form takes labels shipping today or later`,
  onForm: (id: string) => `Already on SCAN form ${scanFormName(id)}`,
  noForms: (upstream: string) => `Labels bought at ${upstream} cannot go on a SCAN form through this shop`,
} as const;

/** What Order History and Order Details say of a label on a form (it is no longer refunded through the shop). */
export const onScanForm = (id: string) => `On SCAN form ${scanFormName(id)}`;
export const refundOnScanForm = (id: string) => `Cannot be refunded: it is on SCAN form ${scanFormName(id)}, which the carrier scans`;
