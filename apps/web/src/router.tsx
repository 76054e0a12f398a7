import { Navigate, createBrowserRouter } from 'react-router-dom';
import { Layout } from './components/layout.tsx';
import { SignInPage } from './features/auth/sign-in-page.tsx';
import { SignUpPage } from './features/auth/sign-up-page.tsx';
import { ForgotPasswordPage } from './features/auth/forgot-password-page.tsx';
import { ResetPasswordPage } from './features/auth/reset-password-page.tsx';
import { VerifyEmailPage } from './features/auth/verify-email-page.tsx';
import { TermsPage } from './features/auth/terms-page.tsx';
import { DashboardPage } from './features/dashboard/dashboard-page.tsx';
import { CreateOrderPage } from './features/create-order/create-order-page.tsx';
import { AddressesPage } from './features/addresses/addresses-page.tsx';
import { FaqsPage } from './features/faqs/faqs-page.tsx';
import { DepositsPage } from './features/deposits/deposits-page.tsx';
import { SettingsPage } from './features/settings/settings-page.tsx';
import { CsvOrdersPage } from './features/bulk-csv/csv-orders-page.tsx';
import { PlaceholderPage } from './features/placeholder/placeholder-page.tsx';

/** The portal for a signed-in user: every screen inside the sidebar layout. */
export const createLoggedInRouter = () =>
  createBrowserRouter([
    {
      path: '/',
      element: <Layout />,
      children: [
        { index: true, element: <DashboardPage /> },
        { path: 'createorders', element: <CreateOrderPage /> },
        { path: 'address', element: <AddressesPage /> },
        { path: 'deposits', element: <DepositsPage /> },
        { path: 'csv-orders', element: <CsvOrdersPage /> },
        { path: 'api-docs', element: <PlaceholderPage title="Reseller API" /> },
        { path: 'fedex-order', element: <PlaceholderPage title="FedEx - Handmade" /> },
        { path: 'faqs', element: <FaqsPage /> },
        { path: 'amazon-csv', element: <PlaceholderPage title="Amazon CSV Generator" /> },
        { path: 'settings', element: <SettingsPage /> },
        // Entering the code mailed after an email change in Account Setting.
        { path: 'verify', element: <VerifyEmailPage /> },
        { path: '*', element: <Navigate to="/" replace /> },
      ],
    },
  ]);

/** A visitor: the auth screens and terms; any other path is the sign-in page. */
export const createLoggedOutRouter = () =>
  createBrowserRouter([
    { path: '/register', element: <SignUpPage /> },
    { path: '/forgot', element: <ForgotPasswordPage /> },
    { path: '/reset', element: <ResetPasswordPage /> },
    { path: '/verify', element: <VerifyEmailPage /> },
    { path: '/tos', element: <TermsPage /> },
    { path: '/login', element: <SignInPage /> },
    { path: '*', element: <SignInPage /> },
  ]);
