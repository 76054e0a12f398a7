import { useQuery } from '@tanstack/react-query';
import { Alert, Card, Col, Row } from 'react-bootstrap';
import { readAnnouncement } from '../../api/content.ts';
import { useCurrentUser } from '../../api/current-user.ts';

export function DashboardPage() {
  const { user } = useCurrentUser();
  const announcement = useQuery({ queryKey: ['announcement'], queryFn: readAnnouncement });
  if (announcement.error) console.error('Failed to load announcement', announcement.error);
  return (
    <>
      {announcement.data?.status && announcement.data.announcement && (
        <Alert variant="info" data-testid="announcement">
          {announcement.data.announcement}
        </Alert>
      )}
      <Row className="g-3 mb-4">
        <Col md={6}>
          <Card>
            <Card.Body>
              <Card.Subtitle className="text-muted mb-2">Balance</Card.Subtitle>
              <Card.Title as="h3" data-testid="balance">
                ${user?.balance.toFixed(2)}
              </Card.Title>
            </Card.Body>
          </Card>
        </Col>
      </Row>
    </>
  );
}
