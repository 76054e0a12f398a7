import { useEffect } from 'react';
import { queryOptions, useQuery } from '@tanstack/react-query';
import type { MessageResponse, PackageBody, SavedPackage } from '@portal/contract';
import { request } from './client.ts';
import { serverMessage, useApiMutation } from './mutation.ts';

type Saved = MessageResponse & { package: SavedPackage };

export const readPackages = () => request<{ packages: SavedPackage[] }>('/packages');
export const createPackage = (body: PackageBody) => request<Saved>('/packages', { method: 'POST', body });
export const updatePackage = (id: string, body: PackageBody) => request<Saved>(`/packages/${encodeURIComponent(id)}`, { method: 'PUT', body });
export const deletePackage = (id: string) => request<MessageResponse>(`/packages/${encodeURIComponent(id)}`, { method: 'DELETE' });

export const packagesQuery = () => queryOptions({ queryKey: ['packages'], queryFn: readPackages });

/** The saved packages, by name, loaded on entry; a failure is only logged (a picker then offers none). */
export function useSavedPackages(): SavedPackage[] {
  const query = useQuery(packagesQuery());
  useEffect(() => {
    if (query.error) console.error('Failed to load packages', query.error);
  }, [query.error]);
  return query.data?.packages ?? [];
}

/** Add (no id) or update a package. */
export const useSavePackage = () =>
  useApiMutation({
    call: ({ id, body }: { id: string | null; body: PackageBody }) => (id ? updatePackage(id, body) : createPackage(body)),
    invalidates: [packagesQuery().queryKey],
    successToast: serverMessage,
  });

export const useDeletePackage = () => useApiMutation({ call: deletePackage, invalidates: [packagesQuery().queryKey], successToast: serverMessage });
