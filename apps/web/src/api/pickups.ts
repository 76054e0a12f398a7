import { queryOptions } from '@tanstack/react-query';
import type { PickupAnswer, PickupBuyBody, PickupListResponse, PickupRatesBody } from '@portal/contract';
import { request } from './client.ts';
import { accessQuery } from './current-user.ts';
import { useApiMutation } from './mutation.ts';

/** Every pickup query's key starts so. */
const PICKUPS_QUERY_KEY = ['pickups'];

export const readPickups = () => request<PickupListResponse>('/pickup/read');
export const ratePickup = (body: PickupRatesBody) => request<PickupAnswer>('/pickup/rates', { method: 'POST', body });
export const bookPickup = (body: PickupBuyBody) => request<PickupAnswer>('/pickup', { method: 'POST', body });
export const cancelPickup = (id: string) => request<PickupAnswer>(`/pickup/${encodeURIComponent(id)}/cancel`, { method: 'POST' });

export const pickupsQuery = () => queryOptions({ queryKey: [...PICKUPS_QUERY_KEY, 'list'], queryFn: readPickups });

/** The pickups and the balance: a booking charges its fee, a cancel refunds it (a refusal may have moved them too). */
const CHANGED = [PICKUPS_QUERY_KEY, accessQuery().queryKey];

// The screen shows each answer in its own alert, which stays: no toasts.
/** 'See pickup rates': a rated pickup, nothing charged yet (it shows in the list as Not booked). */
export const useRatePickup = () => useApiMutation({ call: ratePickup, invalidates: [PICKUPS_QUERY_KEY], errorToast: () => null });
export const useBookPickup = () => useApiMutation({ call: bookPickup, invalidates: CHANGED, invalidateOnError: true, errorToast: () => null });
export const useCancelPickup = () => useApiMutation({ call: cancelPickup, invalidates: CHANGED, invalidateOnError: true, errorToast: () => null });
