import { money } from '../../components/format.ts';

/** A pickup's fee as the screens show it: $4.50, or Free (USPS picks up for nothing). */
export const pickupFee = (fee: number) => (fee === 0 ? 'Free' : money(fee));
