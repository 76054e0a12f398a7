import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Col, Row, Spinner, Tab, Tabs } from 'react-bootstrap';
import type { AdminUser } from '@portal/contract';
import { errorMessage } from '../../../api/client.ts';
import { formatDate, money } from '../../../components/format.ts';
import { useChangeAccount, userQuery, type AccountChange } from '../../../api/admin.ts';
import { ConfirmModal, type Confirmation } from '../../../components/confirm-modal.tsx';
import { LabelOrdersList } from '../orders/label-orders-list.tsx';
import { AdminPickupsCard, AdminScanFormsCard } from '../scan-forms/scan-forms-page.tsx';
import { AdjustBalanceForm } from './adjust-balance-form.tsx';
import { UserBadges } from './user-badges.tsx';
import { UserInvoices, UserStatement } from './user-history.tsx';

/** Disable or enable the account, grant or revoke admin: each asked once more, each answered by the server's message. */
function AccountActions({ user }: { user: AdminUser }) {
  const [confirmation, setConfirmation] = useState<Confirmation | null>(null);
  const account = useChangeAccount();
  const change = (what: AccountChange) => (done: () => void) => account.mutate({ userId: user._id, change: what }, { onSuccess: done });
  const who = `@${user.tgId}`;

  return (
    <Card className="h-100">
      <Card.Header as="h6">Account</Card.Header>
      <Card.Body className="d-flex flex-column gap-2 align-items-start">
        {user.disabled ? (
          <Button
            size="sm"
            variant="outline-success"
            onClick={() =>
              setConfirmation({
                title: 'Enable account',
                body: `${who} can sign in and use the API again.`,
                confirmLabel: 'Enable',
                variant: 'success',
                run: change({ disabled: false }),
              })
            }
          >
            Enable account
          </Button>
        ) : (
          <Button
            size="sm"
            variant="outline-danger"
            onClick={() =>
              setConfirmation({
                title: 'Disable account',
                body: `${who} is signed out and can no longer sign in or use the API key. The balance stays.`,
                confirmLabel: 'Disable',
                variant: 'danger',
                run: change({ disabled: true }),
              })
            }
          >
            Disable account
          </Button>
        )}
        {user.role === 'admin' ? (
          <Button
            size="sm"
            variant="outline-warning"
            onClick={() =>
              setConfirmation({
                title: 'Revoke admin',
                body: `${who} becomes a customer and loses the operator console.`,
                confirmLabel: 'Revoke admin',
                variant: 'warning',
                run: change({ role: 'customer' }),
              })
            }
          >
            Revoke admin
          </Button>
        ) : (
          <Button
            size="sm"
            variant="outline-primary"
            onClick={() =>
              setConfirmation({
                title: 'Grant admin',
                body: `${who} gets the operator console: every user, all money, prices and content.`,
                confirmLabel: 'Grant admin',
                run: change({ role: 'admin' }),
              })
            }
          >
            Grant admin
          </Button>
        )}
      </Card.Body>
      <ConfirmModal confirmation={confirmation} busy={account.isPending} onClose={() => setConfirmation(null)} />
    </Card>
  );
}

/** /admin/users/:userId: balance, role and state, credit or debit, and the user's statement, orders, invoices, SCAN forms and pickups. */
export function UserPage() {
  const userId = useParams().userId ?? '';
  const query = useQuery({ ...userQuery(userId), refetchOnMount: 'always' });
  useEffect(() => {
    if (query.error) console.error('Failed to load the user', query.error);
  }, [query.error]);
  const user = query.data?.user;

  return (
    <>
      <Link to="/admin/users" className="small d-inline-block mb-2">
        ← Users
      </Link>
      {query.isPending && <Spinner animation="border" size="sm" className="d-block" />}
      {query.isError && <Alert variant="danger">{errorMessage(query.error)}</Alert>}
      {user && (
        <>
          <Row className="g-3 mb-4">
            <Col lg={4}>
              <Card className="h-100">
                <Card.Body>
                  <h2 className="h5 mb-1" data-testid="user-name">
                    {user.username}
                  </h2>
                  <div className="mb-2">
                    @{user.tgId} <UserBadges user={user} />
                  </div>
                  <div className="small text-muted">{user.email ? `${user.email}${user.emailVerified ? ' (verified)' : ' (not verified)'}` : 'No email'}</div>
                  <div className="small text-muted">Joined {formatDate(user.createdAt)}</div>
                  <div className="small text-muted">Last active {user.lastActiveAt ? formatDate(user.lastActiveAt) : 'never'}</div>
                  <div className="mt-3">
                    <div className="text-muted small">Balance</div>
                    <div className="display-6 fw-semibold" data-testid="user-balance">
                      {money(user.balance)}
                    </div>
                  </div>
                </Card.Body>
              </Card>
            </Col>
            <Col md={7} lg={5}>
              <AdjustBalanceForm userId={user._id} />
            </Col>
            <Col md={5} lg={3}>
              <AccountActions user={user} />
            </Col>
          </Row>
          <Card>
            <Card.Body>
              <Tabs defaultActiveKey="statement" className="mb-3" mountOnEnter>
                <Tab eventKey="statement" title="Statement">
                  <UserStatement userId={user._id} />
                </Tab>
                <Tab eventKey="orders" title="Orders">
                  <LabelOrdersList filter={{ user: user._id }} showOwner={false} />
                </Tab>
                <Tab eventKey="invoices" title="Invoices">
                  <UserInvoices userId={user._id} />
                </Tab>
                <Tab eventKey="end-of-day" title="End of day">
                  <AdminScanFormsCard userId={user._id} />
                  <AdminPickupsCard userId={user._id} />
                </Tab>
              </Tabs>
            </Card.Body>
          </Card>
        </>
      )}
    </>
  );
}
