import type { Address, AddressBody, MessageResponse } from '@portal/contract';
import { request } from './client.ts';

export const ADDRESSES_QUERY_KEY = ['addresses'];

export const readAddresses = () => request<{ addresses: Address[] }>('/address/readAll');
export const createAddress = (body: AddressBody) => request<MessageResponse>('/address/create', { method: 'POST', body });
export const updateAddress = (id: string, body: AddressBody) => request<MessageResponse>(`/address/update/${encodeURIComponent(id)}`, { method: 'PUT', body });
export const deleteAddress = (id: string) => request<MessageResponse>(`/address/delete/${encodeURIComponent(id)}`, { method: 'DELETE' });
