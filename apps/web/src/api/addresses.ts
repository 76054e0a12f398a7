import { useEffect } from 'react';
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Address, AddressBody, AddressCheckBody, AddressCheckResponse, MessageResponse } from '@portal/contract';
import { request } from './client.ts';
import { serverMessage, useApiMutation } from './mutation.ts';

export const readAddresses = () => request<{ addresses: Address[] }>('/address/readAll');
export const createAddress = (body: AddressBody) => request<MessageResponse>('/address/create', { method: 'POST', body });
export const updateAddress = (id: string, body: AddressBody) => request<MessageResponse>(`/address/update/${encodeURIComponent(id)}`, { method: 'PUT', body });
/** The carrier's word on an address as typed (EASYPOST_VERIFY_ADDRESSES); checked: false when the shop does not ask. */
export const verifyAddress = (body: AddressCheckBody) => request<AddressCheckResponse>('/address/verify', { method: 'POST', body });
export const deleteAddress = (id: string) => request<MessageResponse>(`/address/delete/${encodeURIComponent(id)}`, { method: 'DELETE' });

export const addressesQuery = () => queryOptions({ queryKey: ['addresses'], queryFn: readAddresses });

/** The saved addresses, loaded on entry; a failure is only logged. */
export function useSavedAddresses(): Address[] {
  const query = useQuery(addressesQuery());
  useEffect(() => {
    if (query.error) console.error('Failed to load addresses', query.error);
  }, [query.error]);
  return query.data?.addresses ?? [];
}

/** Add (no id) or update an address. */
export const useSaveAddress = () =>
  useApiMutation({
    call: ({ id, body }: { id: string | null; body: AddressBody }) => (id ? updateAddress(id, body) : createAddress(body)),
    invalidates: [addressesQuery().queryKey],
    successToast: serverMessage,
  });

export const useDeleteAddress = () => useApiMutation({ call: deleteAddress, invalidates: [addressesQuery().queryKey], successToast: serverMessage });
