import { useEffect } from 'react';
import { Card, Col, Row } from 'react-bootstrap';
import { useCurrentUser } from '../../api/current-user.ts';
import { AddBalanceCard } from './add-balance-card.tsx';
import { InvoicesCard } from './invoices-card.tsx';
import { StatementCard } from './statement-card.tsx';
import { money } from '../../components/format.ts';

/** Deposits: Current Balance, the Add Balance form with the bonus notice, the Invoices table and the statement. */
export function DepositsPage() {
  const { user, refresh } = useCurrentUser();
  // Coming back from the hosted payment page: the balance may have changed since the last access check.
  useEffect(() => {
    void refresh();
  }, [refresh]);

  return (
    <>
      <h1 className="h4 mb-4">Deposits</h1>
      <Row className="g-3 mb-4">
        <Col md={5} lg={4}>
          <Card className="h-100">
            <Card.Header as="h6">Current Balance</Card.Header>
            <Card.Body className="d-flex align-items-center">
              <span className="display-6 fw-semibold" data-testid="current-balance">
                {user ? money(user.balance) : '…'}
              </span>
            </Card.Body>
          </Card>
        </Col>
        <Col md={7} lg={8}>
          <AddBalanceCard />
        </Col>
      </Row>
      <InvoicesCard />
      <StatementCard />
    </>
  );
}
