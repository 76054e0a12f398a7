import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { Card, Form } from 'react-bootstrap';
import type { adminUsersResponse } from '@portal/contract';
import { usersQuery } from '../../../api/admin.ts';
import { usePagedList } from '../../../api/paged-list.ts';
import { formatDate, money } from '../../../components/format.ts';
import { PagedTable, type Columns } from '../../../components/paged-table.tsx';
import { SEARCH_DELAY_MS } from '../../../components/use-debounced.ts';
import { UserBadges } from './user-badges.tsx';

type User = ReturnType<typeof adminUsersResponse.parse>['users'][number];

const COLUMNS: Columns<User> = [
  { header: 'Name', cell: (user) => <Link to={`/admin/users/${encodeURIComponent(user._id)}`}>{user.username}</Link> },
  { header: 'Telegram', cell: (user) => `@${user.tgId}` },
  { header: 'Email', cell: (user) => user.email ?? '' },
  { header: 'Role', cell: (user) => <UserBadges user={user} /> },
  { header: 'Balance', className: 'text-end', cell: (user) => money(user.balance) },
  { header: 'Joined', cell: (user) => formatDate(user.createdAt) },
  {
    header: <span title="The account's last request (page or API), to the minute">Last active</span>,
    cell: (user) => (user.lastActiveAt ? formatDate(user.lastActiveAt) : 'Never'),
  },
];

/** /admin/users: every account, newest first; search by name, Telegram username or email. Search and page live in the address, so Back returns to them. */
export function UsersPage() {
  const navigate = useNavigate();
  const params = new URLSearchParams(useLocation().search);
  const search = params.get('search') ?? '';
  const page = Math.max(1, Number(params.get('page')) || 1);
  const go = (next: { search: string; page: number }, replace = false) =>
    void navigate(
      { search: new URLSearchParams({ ...(next.search ? { search: next.search } : {}), ...(next.page > 1 ? { page: String(next.page) } : {}) }).toString() },
      { replace },
    );
  // Typing settles before the search goes into the address (page 1). Only typing does: Back to an
  // earlier search is not undone by the text still in the box.
  const [searchText, setSearchText] = useState(search);
  const typing = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(typing.current), []);
  const onSearchText = (text: string) => {
    setSearchText(text);
    clearTimeout(typing.current);
    typing.current = setTimeout(() => {
      if (text.trim() !== search) go({ search: text.trim(), page: 1 }, true);
    }, SEARCH_DELAY_MS);
  };

  const list = usePagedList({
    query: (page) => usersQuery(search, page),
    page,
    onPageChange: (next) => go({ search, page: next }),
  });
  const users = list.query;

  return (
    <Card>
      <Card.Header className="d-flex flex-wrap align-items-center gap-2">
        <h2 className="h6 mb-0 me-auto">Users</h2>
        <Form.Control
          size="sm"
          type="search"
          aria-label="Search users"
          placeholder="Name, Telegram username or email"
          className="w-auto"
          style={{ minWidth: 280 }}
          value={searchText}
          onChange={(event) => onSearchText(event.target.value)}
        />
      </Card.Header>
      <Card.Body>
        <PagedTable
          query={users}
          rows={users.data?.users ?? []}
          columns={COLUMNS}
          what="the users"
          empty={search ? 'No users match this search' : 'No users yet'}
          testId="users-table"
          rowProps={(user) => ({ 'data-testid': 'user-row', 'data-user-id': user._id })}
          compact
          pager={{ label: 'Users pages', ...list.pager }}
        />
      </Card.Body>
    </Card>
  );
}
