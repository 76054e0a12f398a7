import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { Card, Container } from 'react-bootstrap';
import DOMPurify from 'dompurify';
import { tosQuery } from '../../api/content.ts';

export function TermsPage({ back = { to: '/register', label: 'Back to Sign Up' } }: { back?: { to: string; label: string } }) {
  const tos = useQuery(tosQuery());
  if (tos.error) console.error('Failed to load terms', tos.error);
  return (
    <Container className="py-5" style={{ maxWidth: 860 }}>
      <Card className="shadow-sm">
        <Card.Body className="p-4">
          <h1 className="h3 mb-4">Terms of Service</h1>
          {/* The server's HTML is sanitized before it is shown. */}
          <div className="tos-content" data-testid="tos" dangerouslySetInnerHTML={{ __html: DOMPurify.sanitize(tos.data?.tos ?? '') }} />
          <Link to={back.to}>{back.label}</Link>
        </Card.Body>
      </Card>
    </Container>
  );
}

/** The Terms inside the portal, for a signed-in user. */
export const SignedInTermsPage = () => <TermsPage back={{ to: '/', label: 'Back to Dashboard' }} />;
