import { useEffect, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Card, Form, Spinner, Table } from 'react-bootstrap';
import { formatDate, money } from '../../../components/format.ts';
import { adminKey, readUsers } from '../api.ts';
import { ListPager } from '../list-pager.tsx';
import { useDebounced } from '../../../components/use-debounced.ts';
import { UserBadges } from './user-badges.tsx';

/** /admin/users: every account, newest first; search by name, Telegram username or email. Search and page live in the address, so Back returns to them. */
export function UsersPage() {
  const navigate = useNavigate();
  const params = new URLSearchParams(useLocation().search);
  const search = params.get('search') ?? '';
  const page = Math.max(1, Number(params.get('page')) || 1);
  const go = (next: { search: string; page: number }, replace = false) =>
    void navigate({ search: new URLSearchParams({ ...(next.search ? { search: next.search } : {}), ...(next.page > 1 ? { page: String(next.page) } : {}) }).toString() }, { replace });
  const [searchText, setSearchText] = useState(search);
  const settled = useDebounced(searchText.trim());
  useEffect(() => {
    if (settled !== search) go({ search: settled, page: 1 }, true);
  }, [settled]);
  const setPage = (next: number) => go({ search, page: next });

  const users = useQuery({
    queryKey: adminKey('users', { search, page }),
    queryFn: () => readUsers({ search: search || undefined, page }),
    placeholderData: keepPreviousData,
    refetchOnMount: 'always',
  });
  useEffect(() => {
    if (users.error) console.error('Failed to load users', users.error);
  }, [users.error]);
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
          onChange={(event) => setSearchText(event.target.value)}
        />
      </Card.Header>
      <Card.Body>
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
        <ListPager label="Users pages" page={page} totalPages={users.data?.totalPages ?? 1} onPageChange={setPage} />
      </Card.Body>
    </Card>
  );
}
