import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { Card, Form, Spinner, Table } from 'react-bootstrap';
import { usersQuery } from '../../../api/admin.ts';
import { usePagedList } from '../../../api/paged-list.ts';
import { formatDate, money } from '../../../components/format.ts';
import { LoadError } from '../../../components/load-error.tsx';
import { Pagination } from '../../../components/pagination.tsx';
import { SEARCH_DELAY_MS } from '../../../components/use-debounced.ts';
import { UserBadges } from './user-badges.tsx';

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
  const rows = users.data?.users ?? [];

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
        <LoadError query={users} what="the users" />
        <Table responsive hover size="sm" className="align-middle small mb-3" data-testid="users-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Telegram</th>
              <th>Email</th>
              <th>Role</th>
              <th className="text-end">Balance</th>
              <th>Joined</th>
              <th>Last active</th>
            </tr>
          </thead>
          <tbody>
            {users.isPending && (
              <tr>
                <td colSpan={7} className="text-center">
                  <Spinner animation="border" size="sm" />
                </td>
              </tr>
            )}
            {users.isSuccess && rows.length === 0 && (
              <tr>
                <td colSpan={7} className="text-center text-muted">
                  {search ? 'No users match this search' : 'No users yet'}
                </td>
              </tr>
            )}
            {rows.map((user) => (
              <tr key={user._id} data-testid="user-row" data-user-id={user._id}>
                <td>
                  <Link to={`/admin/users/${encodeURIComponent(user._id)}`}>{user.username}</Link>
                </td>
                <td>@{user.tgId}</td>
                <td>{user.email ?? ''}</td>
                <td>
                  <UserBadges user={user} />
                </td>
                <td className="text-end">{money(user.balance)}</td>
                <td>{formatDate(user.createdAt)}</td>
                <td>{user.lastActiveAt ? formatDate(user.lastActiveAt) : 'Never'}</td>
              </tr>
            ))}
          </tbody>
        </Table>
        <Pagination label="Users pages" {...list.pager} />
      </Card.Body>
    </Card>
  );
}
