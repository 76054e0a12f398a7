import { useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { LabelType, PriceBody } from '@portal/contract';
import { request } from './client.ts';

export const LABEL_TYPES_QUERY_KEY = ['labelTypes'];
export const PRICE_QUERY_KEY = ['price'];

export const readLabelTypes = () => request<{ labelTypes: LabelType[] }>('/labeltype/read');
export const readPrice = (body: PriceBody) => request<{ price: number }>('/order/price', { method: 'POST', body });

/** The enabled label types, loaded on entry; a failure is only logged. */
export function useLabelTypes(): LabelType[] {
  const query = useQuery({ queryKey: LABEL_TYPES_QUERY_KEY, queryFn: readLabelTypes });
  useEffect(() => {
    if (query.error) console.error('Failed to load label types', query.error);
  }, [query.error]);
  return query.data?.labelTypes ?? [];
}
