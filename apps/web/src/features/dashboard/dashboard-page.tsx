import { useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { Alert, Card, Col, Row } from 'react-bootstrap';
import { publicConfigQuery } from '../../api/auth.ts';
import { announcementQuery } from '../../api/content.ts';
import { useCurrentUser } from '../../api/current-user.ts';
import { autoVoidSavedQuery, orderCountQuery } from '../../api/orders.ts';
import { money } from '../../components/format.ts';
import { OrderHistoryCard } from './order-history-card.tsx';
import { TelegramLink } from './telegram-link.tsx';

/** Dashboard: announcement banner, Orders count and Balance cards, Order History. */
export function DashboardPage() {
  const { user } = useCurrentUser();
  const announcement = useQuery(announcementQuery());
  // Every order of the user, whatever the history's search shows.
  const count = useQuery({ ...orderCountQuery(), refetchOnMount: 'always' });
  const config = useQuery(publicConfigQuery());
  const autoVoids = useQuery(autoVoidSavedQuery());
  useEffect(() => {
    if (announcement.error) console.error('Failed to load announcement', announcement.error);
    if (count.error) console.error('Failed to load the order count', count.error);
  }, [announcement.error, count.error]);
  const bot = config.data?.telegramBot;

  // The banner sits above everything else: the page stays invisible (its calls already out) until
  // the banner is known, so the cards and the history do not jump down when it arrives.
  return (
    <div className={announcement.isPending ? 'invisible' : undefined} data-testid="dashboard">
      {announcement.data?.status && announcement.data.announcement && (
        <Alert variant="info" data-testid="announcement">
          {announcement.data.announcement}
        </Alert>
      )}
      <Row className="g-3 mb-4">
        <Col md={6}>
          <Card className="h-100">
            <Card.Body>
              <div className="d-flex justify-content-between align-items-start">
                <Card.Subtitle className="text-muted mb-2">Orders</Card.Subtitle>
                {bot && <TelegramLink bot={bot} />}
              </div>
              <Card.Title as="h3" data-testid="orders-count">
                {count.data?.total ?? '…'}
              </Card.Title>
            </Card.Body>
          </Card>
        </Col>
        <Col md={6}>
          <Card className="h-100">
            <Card.Body>
              <Card.Subtitle className="text-muted mb-2">Balance</Card.Subtitle>
              <Card.Title as="h3" data-testid="balance">
                {user ? money(user.balance) : '…'}
              </Card.Title>
              {autoVoids.data && autoVoids.data.count > 0 && (
                <Card.Text className="small text-muted mb-0" data-testid="auto-void-saved">
                  Saved by automatic voids: {money(autoVoids.data.saved)} this month
                </Card.Text>
              )}
            </Card.Body>
          </Card>
        </Col>
      </Row>
      {user && count.data?.total === 0 && (
        // A new account's first steps: money first, then the first label.
        <Alert variant="light" className="border" data-testid="first-steps">
          <strong>First steps:</strong> 1. <Link to="/deposits">Deposit</Link> to your balance → 2. <Link to="/createOrders">Create Order</Link> for your first
          label.
        </Alert>
      )}
      <OrderHistoryCard />
    </div>
  );
}
