import type { LabelType, PriceBody } from '@portal/contract';
import { request } from './client.ts';

export const LABEL_TYPES_QUERY_KEY = ['labelTypes'];
export const PRICE_QUERY_KEY = ['price'];

export const readLabelTypes = () => request<{ labelTypes: LabelType[] }>('/labeltype/read');
export const readPrice = (body: PriceBody) => request<{ price: number }>('/order/price', { method: 'POST', body });
