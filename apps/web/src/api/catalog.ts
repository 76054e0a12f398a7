import { useEffect } from 'react';
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { LabelType, PriceBody } from '@portal/contract';
import { request } from './client.ts';

export const readLabelTypes = () => request<{ labelTypes: LabelType[] }>('/labeltype/read');
export const readPrice = (body: PriceBody) => request<{ price: number; insurance?: number }>('/order/price', { method: 'POST', body });

export const labelTypesQuery = () => queryOptions({ queryKey: ['labelTypes'], queryFn: readLabelTypes });
/** Every price lookup's key starts so: a change of prices reads them all again. */
export const PRICE_QUERY_KEY = ['price'];
export const priceQuery = (labelType: string, weight: number, insurance?: number) =>
  queryOptions({
    queryKey: [...PRICE_QUERY_KEY, labelType, weight, insurance ?? null],
    queryFn: () => readPrice({ labelType, weight, ...(insurance ? { insurance } : {}) }),
    // A declared value above the shop's limit is answered 400 with the reason: shown, not retried.
    retry: insurance ? false : undefined,
  });

/** The enabled label types, loaded on entry; a failure is only logged. */
export function useLabelTypes(): LabelType[] {
  const query = useQuery(labelTypesQuery());
  useEffect(() => {
    if (query.error) console.error('Failed to load label types', query.error);
  }, [query.error]);
  return query.data?.labelTypes ?? [];
}
