/** Money and date formatting shared by the screens. */
import { formatDollars } from '@portal/contract';

export const formatDate = (iso: string) => new Date(iso).toLocaleString();
export const money = (dollars: number) => `$${formatDollars(dollars)}`;
/** Credits with a plus, debits with a minus: +$250.00, -$12.40. */
export const signedMoney = (dollars: number) => `${dollars < 0 ? '-' : '+'}$${formatDollars(Math.abs(dollars))}`;
