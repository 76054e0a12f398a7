import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { Accordion, Card, Spinner } from 'react-bootstrap';
import { faqsQuery } from '../../api/content.ts';

export function FaqsPage() {
  const faqs = useQuery(faqsQuery());
  if (faqs.error) console.error('Failed to load FAQs', faqs.error);
  return (
    <Card>
      <Card.Header className="d-flex flex-wrap align-items-center justify-content-between gap-2">
        <h5 className="mb-0">Frequently Asked Questions</h5>
        <Link to="/prices">Price table</Link>
      </Card.Header>
      <Card.Body>
        {faqs.isPending && <Spinner animation="border" size="sm" />}
        <Accordion>
          {faqs.data?.data.map((faq, index) => (
            <Accordion.Item eventKey={String(index)} key={faq.question}>
              <Accordion.Header>{faq.question}</Accordion.Header>
              <Accordion.Body>{faq.answer}</Accordion.Body>
            </Accordion.Item>
          ))}
        </Accordion>
      </Card.Body>
    </Card>
  );
}
