import type { ScanFormFrom } from '@portal/contract';

/** A from address on one line: Jane Sender, 123 Main Street, New York, NY 10001. */
export const fromLine = (from: ScanFormFrom) =>
  [from.name, from.company, from.street, from.street2, `${from.city}, ${from.state} ${from.zip}`].filter(Boolean).join(', ');
