import { useState } from 'react';
import { Link, Outlet, useLocation } from 'react-router-dom';
import { Button, Dropdown, Offcanvas } from 'react-bootstrap';
import { useCurrentUser } from '../api/current-user.ts';
import { signOut } from '../api/session.ts';
import { money } from './format.ts';
import { DocumentTitle } from './route-pages.tsx';
import { ADMIN_NAV_ITEM, NAV_ITEMS, firstSegment } from './nav-items.ts';

function SidebarLinks({ onNavigate }: { onNavigate?: () => void }) {
  const active = firstSegment(useLocation().pathname);
  const { user } = useCurrentUser();
  // Only an admin has the console's link (and its routes).
  const items = user?.role === 'admin' ? [...NAV_ITEMS, ADMIN_NAV_ITEM] : NAV_ITEMS;
  return (
    <nav className="nav flex-column sidebar-nav" aria-label="Main">
      {items.map((item) => {
        const isActive = firstSegment(item.path) === active;
        return (
          <Link key={item.path} to={item.path} onClick={onNavigate} className={`nav-link sidebar-link${isActive ? ' active' : ''}`} aria-current={isActive ? 'page' : undefined} title={item.label}>
            <span className="sidebar-icon" aria-hidden>
              {item.icon}
            </span>
            <span className="sidebar-label">{item.label}</span>
          </Link>
        );
      })}
    </nav>
  );
}

/** Sidebar plus header around every signed-in screen. The sidebar collapses on wide screens and slides in on small ones. */
export function Layout() {
  const { user } = useCurrentUser();
  const [collapsed, setCollapsed] = useState(false);
  const [mobileOpen, setMobileOpen] = useState(false);
  const toggle = () => (window.matchMedia('(max-width: 991.98px)').matches ? setMobileOpen((o) => !o) : setCollapsed((c) => !c));

  return (
    <div className={`app-shell${collapsed ? ' sidebar-collapsed' : ''}`}>
      <DocumentTitle />
      <aside className="app-sidebar d-none d-lg-flex flex-column" data-testid="sidebar">
        <Link to="/" className="sidebar-brand">
          <span className="sidebar-icon">▣</span>
          <span className="sidebar-label">Label Portal</span>
        </Link>
        <SidebarLinks />
      </aside>
      <Offcanvas show={mobileOpen} onHide={() => setMobileOpen(false)} className="app-sidebar-mobile" aria-label="Menu">
        <Offcanvas.Header closeButton>
          <Offcanvas.Title>Label Portal</Offcanvas.Title>
        </Offcanvas.Header>
        <Offcanvas.Body>
          <SidebarLinks onNavigate={() => setMobileOpen(false)} />
        </Offcanvas.Body>
      </Offcanvas>
      <div className="app-main">
        <header className="app-header d-flex align-items-center justify-content-between px-3">
          <Button variant="outline-secondary" size="sm" onClick={toggle} aria-label="Toggle sidebar">
            ☰
          </Button>
          <div className="d-flex align-items-center gap-3">
            {user && (
              <span className="text-muted small text-nowrap" data-testid="header-balance">
                <span className="d-none d-sm-inline">Balance: </span>
                {money(user.balance)}
              </span>
            )}
            <Dropdown align="end">
              <Dropdown.Toggle variant="light" id="user-menu" data-testid="user-menu">
                {user ? `@${user.tgId}` : 'Account'}
              </Dropdown.Toggle>
              <Dropdown.Menu>
                <Dropdown.Item as={Link} to="/settings">
                  Account Setting
                </Dropdown.Item>
                <Dropdown.Divider />
                <Dropdown.Item onClick={signOut}>Sign out</Dropdown.Item>
              </Dropdown.Menu>
            </Dropdown>
          </div>
        </header>
        <main className="app-content p-3 p-md-4">
          <Outlet />
        </main>
      </div>
    </div>
  );
}
