import { useCallback } from 'react';
import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { readAccess } from './auth.ts';

/** The access check: the signed-in user (balance, email, API key, role). */
export const accessQuery = () => queryOptions({ queryKey: ['access'], queryFn: readAccess });

/** The signed-in user from the access check (balance, email, API key); refresh() after anything that changes them. */
export function useCurrentUser() {
  const queryClient = useQueryClient();
  const access = useQuery(accessQuery());
  const refresh = useCallback(() => queryClient.invalidateQueries({ queryKey: accessQuery().queryKey }), [queryClient]);
  return { user: access.data, refresh };
}
