import { Navigate, createBrowserRouter, type RouteObject } from 'react-router-dom';
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
import { FedexOrderPage } from './features/fedex/fedex-order-page.tsx';
import { ApiDocsPage } from './features/api-docs/api-docs-page.tsx';
import { AmazonCsvPage } from './features/amazon-csv/amazon-csv-page.tsx';
import { FullPageSpinner } from './components/full-page-spinner.tsx';
import { NotFoundPage, RouteErrorPage, TitledOutlet } from './components/route-pages.tsx';

type AdminConsole = typeof import('./features/admin/admin-console.tsx');
/** A page of the operator console, taken from its chunk the first time an admin opens it. */
const fromConsole = (name: keyof AdminConsole) => async () => ({ Component: (await import('./features/admin/admin-console.tsx'))[name] });

/**
 * The operator console, for admins only: one chunk of its own, so customers never download it.
 * Customers' routers do not have this route: their /admin/* leads to the dashboard.
 */
const adminRoute: RouteObject = {
  path: 'admin',
  handle: { title: 'Operator console' },
  lazy: fromConsole('AdminLayout'),
  children: [
    { index: true, lazy: fromConsole('OverviewPage') },
    { path: 'users', lazy: fromConsole('UsersPage') },
    { path: 'users/:userId', lazy: fromConsole('UserPage') },
    { path: 'orders', lazy: fromConsole('OrdersPage') },
    { path: 'label-types', lazy: fromConsole('LabelTypesPage') },
    { path: 'fedex-price', lazy: fromConsole('FedexPricePage') },
    { path: 'content', lazy: fromConsole('ContentPage') },
    { path: 'fedex-queue', lazy: fromConsole('FedexQueuePage') },
    { path: 'outbox', lazy: fromConsole('OutboxPage') },
    { path: 'audit', lazy: fromConsole('AuditPage') },
    { path: '*', element: <Navigate to="/admin" replace /> },
  ],
};

/** The portal for a signed-in user: every screen inside the sidebar layout; /admin too for an admin. */
export const createLoggedInRouter = ({ admin }: { admin: boolean }) =>
  createBrowserRouter([
    {
      path: '/',
      element: <Layout />,
      errorElement: <RouteErrorPage />,
      // Shown while an admin's first page is /admin and the console's chunk is on its way.
      hydrateFallbackElement: <FullPageSpinner />,
      children: [
        { index: true, element: <DashboardPage />, handle: { title: 'Dashboard' } },
        { path: 'createorders', element: <CreateOrderPage />, handle: { title: 'Create Order' } },
        { path: 'address', element: <AddressesPage />, handle: { title: 'Addresses' } },
        { path: 'deposits', element: <DepositsPage />, handle: { title: 'Deposits' } },
        { path: 'csv-orders', element: <CsvOrdersPage />, handle: { title: 'USPS CSV' } },
        { path: 'api-docs', element: <ApiDocsPage />, handle: { title: 'Reseller API' } },
        { path: 'fedex-order', element: <FedexOrderPage />, handle: { title: 'FedEx - Handmade' } },
        { path: 'faqs', element: <FaqsPage />, handle: { title: 'FAQs' } },
        { path: 'amazon-csv', element: <AmazonCsvPage />, handle: { title: 'Amazon CSV Generator' } },
        { path: 'settings', element: <SettingsPage />, handle: { title: 'Account Setting' } },
        // Entering the code mailed after an email change in Account Setting.
        { path: 'verify', element: <VerifyEmailPage />, handle: { title: 'Verify Email' } },
        // A customer's /admin is the dashboard (no console for them).
        ...(admin ? [adminRoute] : [{ path: 'admin/*', element: <Navigate to="/" replace /> }]),
        { path: '*', element: <NotFoundPage />, handle: { title: 'Page not found' } },
      ],
    },
  ]);

/** A visitor: the auth screens and terms; any other path is the sign-in page. */
export const createLoggedOutRouter = () =>
  createBrowserRouter([
    {
      element: <TitledOutlet />,
      errorElement: <RouteErrorPage />,
      children: [
        { path: '/register', element: <SignUpPage />, handle: { title: 'Sign Up' } },
        { path: '/forgot', element: <ForgotPasswordPage />, handle: { title: 'Forgot Password' } },
        { path: '/reset', element: <ResetPasswordPage />, handle: { title: 'Reset Password' } },
        { path: '/verify', element: <VerifyEmailPage />, handle: { title: 'Verify Email' } },
        { path: '/tos', element: <TermsPage />, handle: { title: 'Terms of Service' } },
        { path: '/login', element: <SignInPage />, handle: { title: 'Sign In' } },
        { path: '*', element: <SignInPage />, handle: { title: 'Sign In' } },
      ],
    },
  ]);
