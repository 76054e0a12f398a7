import { useEffect, useRef, useState } from 'react';
import { Link, Outlet, useLocation } from 'react-router-dom';
import { Button, Offcanvas } from 'react-bootstrap';
import { useCurrentUser } from '../api/current-user.ts';
import { restoreExpiredDraft, takeNotice } from '../api/session-expiry.ts';
import { toast } from './toast.tsx';
import { signOut } from '../api/auth.ts';
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
          <Link
            key={item.path}
            to={item.path}
            onClick={onNavigate}
            className={`nav-link sidebar-link${isActive ? ' active' : ''}`}
            aria-current={isActive ? 'page' : undefined}
            title={item.label}
          >
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

/**
 * The header's account menu: a button that opens Account Setting and Sign out below it (Bootstrap's
 * dropdown look, without the positioning library: the menu always opens down and to the left).
 * A click outside, Escape or a choice closes it.
 */
function UserMenu({ label }: { label: string }) {
  const [open, setOpen] = useState(false);
  const menu = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const closeOutside = (event: MouseEvent) => {
      if (!menu.current?.contains(event.target as Node)) setOpen(false);
    };
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setOpen(false);
    };
    document.addEventListener('click', closeOutside);
    document.addEventListener('keydown', closeOnEscape);
    return () => {
      document.removeEventListener('click', closeOutside);
      document.removeEventListener('keydown', closeOnEscape);
    };
  }, [open]);
  return (
    <div className="dropdown" ref={menu}>
      <button
        type="button"
        className={`btn btn-light dropdown-toggle${open ? ' show' : ''}`}
        id="user-menu"
        data-testid="user-menu"
        aria-expanded={open}
        aria-controls="user-menu-items"
        onClick={() => setOpen((o) => !o)}
      >
        {label}
      </button>
      <div id="user-menu-items" className={`dropdown-menu dropdown-menu-end${open ? ' show' : ''}`} data-bs-popper="static">
        <Link className="dropdown-item" to="/settings" onClick={() => setOpen(false)}>
          Account Setting
        </Link>
        <hr className="dropdown-divider" />
        <button type="button" className="dropdown-item" onClick={() => void signOut()}>
          Sign out
        </button>
      </div>
    </div>
  );
}

/** Sidebar plus header around every signed-in screen. The sidebar collapses on wide screens and slides in on small ones. */
export function Layout() {
  const { user } = useCurrentUser();
  const [collapsed, setCollapsed] = useState(false);
  const [mobileOpen, setMobileOpen] = useState(false);
  const toggle = () => (window.matchMedia('(max-width: 991.98px)').matches ? setMobileOpen((o) => !o) : setCollapsed((c) => !c));
  // Back on the screen an expired session left: its fields are filled again.
  const { pathname } = useLocation();
  useEffect(() => restoreExpiredDraft(pathname), [pathname]);
  // A confirmation kept across the reload that signed the user in.
  useEffect(() => {
    const notice = takeNotice();
    if (notice) toast.success(notice);
  }, []);

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
            <UserMenu label={user ? `@${user.tgId}` : 'Account'} />
          </div>
        </header>
        <main className="app-content p-3 p-md-4">
          <Outlet />
        </main>
      </div>
    </div>
  );
}
