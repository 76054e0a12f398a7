import { Accordion, Card, Spinner } from 'react-bootstrap';
import { outboxQuery } from '../../../api/admin.ts';
import { usePagedList } from '../../../api/paged-list.ts';
import { formatDate } from '../../../components/format.ts';
import { LoadError } from '../../../components/load-error.tsx';
import { Pagination } from '../../../components/pagination.tsx';

/** /admin/outbox: the mails kept instead of sent while SMTP_URL is unset, newest first; open one to read it. */
export function OutboxPage() {
  const list = usePagedList({ query: outboxQuery });
  const outbox = list.query;
  const mails = outbox.data?.mails ?? [];

  return (
    <Card>
      <Card.Header>
        <h2 className="h6 mb-0">Outbox</h2>
      </Card.Header>
      <Card.Body>
        <p className="small text-muted">
          Without SMTP_URL the shop sends no mail: each one (sign-up and reset codes, email changes) is kept here, newest first.
        </p>
        {outbox.isPending && <Spinner animation="border" size="sm" />}
        <LoadError query={outbox} what="the outbox" />
        {outbox.isSuccess && mails.length === 0 && <p className="text-muted">The outbox is empty</p>}
        <Accordion className="mb-3" data-testid="outbox">
          {mails.map((mail) => (
            <Accordion.Item eventKey={mail._id} key={mail._id} data-testid="outbox-mail">
              <Accordion.Header>
                {/* Wraps on a phone, long addresses and codes included, rather than widen the page. */}
                <span className="d-flex flex-wrap column-gap-3 text-break" style={{ minWidth: 0 }}>
                  <span className="text-muted small text-nowrap">{formatDate(mail.createdAt)}</span>
                  <span>{mail.to}</span>
                  <strong>{mail.subject}</strong>
                </span>
              </Accordion.Header>
              <Accordion.Body>
                <pre className="mb-0 small text-break" style={{ whiteSpace: 'pre-wrap' }} data-testid="outbox-body">
                  {mail.body}
                </pre>
              </Accordion.Body>
            </Accordion.Item>
          ))}
        </Accordion>
        <Pagination label="Outbox pages" {...list.pager} />
      </Card.Body>
    </Card>
  );
}
