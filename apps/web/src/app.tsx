import { useMemo, useState } from 'react';
import { RouterProvider } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { accessQuery } from './api/current-user.ts';
import { getToken } from './api/session.ts';
import { FullPageSpinner } from './components/full-page-spinner.tsx';
import { createLoggedInRouter, createLoggedOutRouter } from './router.tsx';

/**
 * Spinner until the access check ends; then the logged-in portal or the logged-out screens.
 * Without a token there is nothing to check: the logged-out screens show at once.
 */
export function App() {
  const [hasToken] = useState(() => Boolean(getToken()));
  const access = useQuery({ ...accessQuery(), enabled: hasToken });
  const checking = hasToken && access.isPending;
  const loggedIn = hasToken && access.isSuccess;
  const admin = access.data?.role === 'admin';
  const router = useMemo(() => (checking ? null : loggedIn ? createLoggedInRouter({ admin }) : createLoggedOutRouter()), [checking, loggedIn, admin]);
  if (!router) return <FullPageSpinner />;
  return <RouterProvider router={router} />;
}
