import { useMemo } from 'react';
import { RouterProvider } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { readAccess } from './api/auth.ts';
import { ACCESS_QUERY_KEY } from './api/current-user.ts';
import { FullPageSpinner } from './components/full-page-spinner.tsx';
import { createLoggedInRouter, createLoggedOutRouter } from './router.tsx';

/** Spinner until the access check ends; then the logged-in portal or the logged-out screens. */
export function App() {
  const access = useQuery({ queryKey: ACCESS_QUERY_KEY, queryFn: readAccess });
  const loggedIn = access.isSuccess;
  const admin = access.data?.role === 'admin';
  const router = useMemo(() => (access.isPending ? null : loggedIn ? createLoggedInRouter({ admin }) : createLoggedOutRouter()), [access.isPending, loggedIn, admin]);
  if (!router) return <FullPageSpinner />;
  return <RouterProvider router={router} />;
}
