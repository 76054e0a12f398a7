import { Card } from 'react-bootstrap';

/** Stands in for a screen whose capability has not landed yet. */
export function PlaceholderPage({ title }: { title: string }) {
  return (
    <Card>
      <Card.Header as="h5">{title}</Card.Header>
      <Card.Body className="text-muted">This screen is on its way.</Card.Body>
    </Card>
  );
}
