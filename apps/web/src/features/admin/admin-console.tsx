import { useEffect, useRef } from 'react';
import { Link, Outlet, useLocation } from 'react-router-dom';
import { Nav } from 'react-bootstrap';

// The operator console's one chunk: router.tsx imports this file lazily, for admins only, and
// takes each /admin page from it, so customers never download any of it. The pages are named
// here (a deliberate re-export list, not a barrel) because this file is the chunk's edge.
export { OverviewPage } from './overview/overview-page.tsx';
export { UsersPage } from './users/users-page.tsx';
export { UserPage } from './users/user-page.tsx';
export { OrdersPage } from './orders/orders-page.tsx';
export { LabelTypesPage } from './prices/label-types-page.tsx';
export { PriceCheckPage } from './price-check/price-check-page.tsx';
export { FedexPricePage } from './prices/fedex-price-page.tsx';
export { ContentPage } from './content/content-page.tsx';
export { FedexQueuePage } from './fedex-queue/fedex-queue-page.tsx';
export { RefundsPage } from './refunds/refunds-page.tsx';
export { ScanFormsPage } from './scan-forms/scan-forms-page.tsx';
export { OutboxPage } from './outbox/outbox-page.tsx';
export { AuditPage } from './audit/audit-page.tsx';

/** The console's own menu, in the order the operators work through it. */
const ADMIN_NAV = [
  { label: 'Overview', path: '/admin' },
  { label: 'Users', path: '/admin/users' },
  { label: 'Orders', path: '/admin/orders' },
  { label: 'Label types', path: '/admin/label-types' },
  { label: 'Price check', path: '/admin/price-check' },
  { label: 'FedEx price', path: '/admin/fedex-price' },
  { label: 'Content', path: '/admin/content' },
  { label: 'FedEx queue', path: '/admin/fedex-queue' },
  { label: 'Refunds', path: '/admin/refunds' },
  { label: 'End of day', path: '/admin/scan-forms' },
  { label: 'Outbox', path: '/admin/outbox' },
  { label: 'Audit log', path: '/admin/audit' },
] as const;

/** Overview is active on /admin only; every other entry on its own path and below (a user's page is under Users). */
const isActive = (path: string, pathname: string) =>
  path === '/admin' ? pathname.replace(/\/$/, '') === '/admin' : pathname === path || pathname.startsWith(`${path}/`);

/** Heading and sub-menu above every console page, inside the portal's layout. */
export function AdminLayout() {
  const { pathname } = useLocation();
  // On a phone the row scrolls sideways: the open page's tab is brought into it.
  const tabs = useRef<HTMLElement>(null);
  useEffect(() => {
    const bar = tabs.current;
    const active = bar?.querySelector<HTMLElement>('.nav-link.active');
    if (bar && active && (active.offsetLeft < bar.scrollLeft || active.offsetLeft + active.offsetWidth > bar.scrollLeft + bar.clientWidth))
      bar.scrollLeft = active.offsetLeft - (bar.clientWidth - active.offsetWidth) / 2;
  }, [pathname]);
  return (
    <>
      <div className="d-flex flex-wrap align-items-baseline gap-3 mb-3">
        <h1 className="h4 mb-0">Operator console</h1>
        <span className="text-muted small">Users, money, prices, content and orders of the whole shop</span>
      </div>
      <Nav ref={tabs} variant="tabs" className="mb-4 console-tabs" as="nav" aria-label="Operator console">
        {ADMIN_NAV.map((item) => {
          const active = isActive(item.path, pathname);
          return (
            <Nav.Item key={item.path}>
              <Nav.Link as={Link} to={item.path} active={active} aria-current={active ? 'page' : undefined}>
                {item.label}
              </Nav.Link>
            </Nav.Item>
          );
        })}
      </Nav>
      <Outlet />
    </>
  );
}
