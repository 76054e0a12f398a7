import type { ComponentType } from 'react';
import { Navigate, createBrowserRouter, matchRoutes, type RouteObject } from 'react-router-dom';
import { FullPageSpinner } from './components/full-page-spinner.tsx';
import { NotFoundPage, RouteErrorPage, TitledOutlet } from './components/route-pages.tsx';

/**
 * A screen taken from its own chunk the first time its path opens, so a first load downloads only
 * the screen it shows. The router waits for it (showing the spinner) before it renders the path.
 */
const screen =
  <M,>(load: () => Promise<M>, name: keyof M) =>
  async () => ({ Component: (await load())[name] as ComponentType });

const fromConsole = (name: keyof typeof import('./features/admin/admin-console.tsx')) => screen(() => import('./features/admin/admin-console.tsx'), name);
const verifyEmail = screen(() => import('./features/auth/verify-email-page.tsx'), 'VerifyEmailPage');
const signIn = screen(() => import('./features/auth/sign-in-page.tsx'), 'SignInPage');

/** A label's public tracking page (/t/:token): the same screen signed in or not, outside the app shell. */
const trackingRoute: RouteObject = {
  path: '/t/:token',
  element: <TitledOutlet />,
  errorElement: <RouteErrorPage />,
  hydrateFallbackElement: <FullPageSpinner />,
  children: [{ index: true, lazy: screen(() => import('./features/tracking/tracking-page.tsx'), 'TrackingPageScreen'), handle: { title: 'Tracking' } }],
};

/**
 * The operator console, for admins only: one chunk of its own (all its pages), so customers never download it.
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
    { path: 'price-check', lazy: fromConsole('PriceCheckPage') },
    { path: 'fedex-price', lazy: fromConsole('FedexPricePage') },
    { path: 'content', lazy: fromConsole('ContentPage') },
    { path: 'fedex-queue', lazy: fromConsole('FedexQueuePage') },
    { path: 'refunds', lazy: fromConsole('RefundsPage') },
    { path: 'scan-forms', lazy: fromConsole('ScanFormsPage') },
    { path: 'outbox', lazy: fromConsole('OutboxPage') },
    { path: 'audit', lazy: fromConsole('AuditPage') },
    { path: '*', element: <Navigate to="/admin" replace /> },
  ],
};

/** The portal for a signed-in user: every screen inside the sidebar layout; /admin too for an admin. */
const loggedInRoutes = ({ admin }: { admin: boolean }): RouteObject[] => [
  trackingRoute,
  {
    path: '/',
    lazy: screen(() => import('./components/layout.tsx'), 'Layout'),
    errorElement: <RouteErrorPage />,
    // Shown while the first screen's chunk is on its way.
    hydrateFallbackElement: <FullPageSpinner />,
    children: [
      { index: true, lazy: screen(() => import('./features/dashboard/dashboard-page.tsx'), 'DashboardPage'), handle: { title: 'Dashboard' } },
      {
        path: 'createorders',
        lazy: screen(() => import('./features/create-order/create-order-page.tsx'), 'CreateOrderPage'),
        handle: { title: 'Create Order' },
      },
      { path: 'address', lazy: screen(() => import('./features/addresses/addresses-page.tsx'), 'AddressesPage'), handle: { title: 'Addresses' } },
      { path: 'packages', lazy: screen(() => import('./features/packages/packages-page.tsx'), 'PackagesPage'), handle: { title: 'Packages' } },
      { path: 'deposits', lazy: screen(() => import('./features/deposits/deposits-page.tsx'), 'DepositsPage'), handle: { title: 'Deposits' } },
      { path: 'csv-orders', lazy: screen(() => import('./features/bulk-csv/csv-orders-page.tsx'), 'CsvOrdersPage'), handle: { title: 'USPS CSV' } },
      { path: 'scan-forms', lazy: screen(() => import('./features/scan-forms/scan-forms-page.tsx'), 'ScanFormsPage'), handle: { title: 'End of day' } },
      { path: 'api-docs', lazy: screen(() => import('./features/api-docs/api-docs-page.tsx'), 'ApiDocsPage'), handle: { title: 'Reseller API' } },
      { path: 'fedex-order', lazy: screen(() => import('./features/fedex/fedex-order-page.tsx'), 'FedexOrderPage'), handle: { title: 'FedEx - Handmade' } },
      { path: 'prices', lazy: screen(() => import('./features/prices/prices-page.tsx'), 'PricesPage'), handle: { title: 'Prices' } },
      // The Terms stay readable once signed in (the sign-up page links there); /login is where a signed-in user already is past.
      { path: 'tos', lazy: screen(() => import('./features/auth/terms-page.tsx'), 'SignedInTermsPage'), handle: { title: 'Terms of Service' } },
      { path: 'login', element: <Navigate to="/" replace /> },
      { path: 'faqs', lazy: screen(() => import('./features/faqs/faqs-page.tsx'), 'FaqsPage'), handle: { title: 'FAQs' } },
      {
        path: 'amazon-csv',
        lazy: screen(() => import('./features/amazon-csv/amazon-csv-page.tsx'), 'AmazonCsvPage'),
        handle: { title: 'Amazon CSV Generator' },
      },
      { path: 'settings', lazy: screen(() => import('./features/settings/settings-page.tsx'), 'SettingsPage'), handle: { title: 'Account Setting' } },
      // Entering the code mailed after an email change in Account Setting.
      { path: 'verify', lazy: verifyEmail, handle: { title: 'Verify Email' } },
      // A customer's /admin is the dashboard (no console for them).
      ...(admin ? [adminRoute] : [{ path: 'admin/*', element: <Navigate to="/" replace /> }]),
      { path: '*', element: <NotFoundPage />, handle: { title: 'Page not found' } },
    ],
  },
];

export const createLoggedInRouter = ({ admin }: { admin: boolean }) => createBrowserRouter(loggedInRoutes({ admin }));

/**
 * Starts fetching the screen at `pathname` (and the layout) with the first script: a signed-in first load does
 * not wait for the access check before asking for them, nor a visitor's for the first render (the router's own
 * loading of them later gets the same modules).
 */
export function preloadScreen(pathname: string, signedIn: boolean): void {
  for (const { route } of matchRoutes(signedIn ? loggedInRoutes({ admin: false }) : loggedOutRoutes(), pathname) ?? []) {
    if (typeof route.lazy === 'function') void route.lazy();
  }
}

/** A visitor: the auth screens and terms; any other path is the sign-in page. */
const loggedOutRoutes = (): RouteObject[] => [
  trackingRoute,
  {
    element: <TitledOutlet />,
    errorElement: <RouteErrorPage />,
    hydrateFallbackElement: <FullPageSpinner />,
    children: [
      { path: '/register', lazy: screen(() => import('./features/auth/sign-up-page.tsx'), 'SignUpPage'), handle: { title: 'Sign Up' } },
      { path: '/forgot', lazy: screen(() => import('./features/auth/forgot-password-page.tsx'), 'ForgotPasswordPage'), handle: { title: 'Forgot Password' } },
      { path: '/reset', lazy: screen(() => import('./features/auth/reset-password-page.tsx'), 'ResetPasswordPage'), handle: { title: 'Reset Password' } },
      { path: '/verify', lazy: verifyEmail, handle: { title: 'Verify Email' } },
      { path: '/tos', lazy: screen(() => import('./features/auth/terms-page.tsx'), 'TermsPage'), handle: { title: 'Terms of Service' } },
      { path: '/login', lazy: signIn, handle: { title: 'Sign In' } },
      { path: '*', lazy: signIn, handle: { title: 'Sign In' } },
    ],
  },
];

export const createLoggedOutRouter = () => createBrowserRouter(loggedOutRoutes());
