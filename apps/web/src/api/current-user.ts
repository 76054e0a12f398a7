import { useCallback } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { readAccess } from './auth.ts';

export const ACCESS_QUERY_KEY = ['access'];

/** The signed-in user from the access check (balance, email, API key); refresh() after anything that changes them. */
export function useCurrentUser() {
  const queryClient = useQueryClient();
  const access = useQuery({ queryKey: ACCESS_QUERY_KEY, queryFn: readAccess });
  const refresh = useCallback(() => queryClient.invalidateQueries({ queryKey: ACCESS_QUERY_KEY }), [queryClient]);
  return { user: access.data, refresh };
}
