import { useQuery } from '@tanstack/react-query';
import { Badge, Card, Spinner } from 'react-bootstrap';
import type { GoingLive } from '@portal/contract';
import { LoadError } from '../../../components/load-error.tsx';
import { goingLiveQuery } from '../../../api/admin.ts';

function Items({ items }: { items: GoingLive['items'] }) {
  return (
    <ul className="list-unstyled small mb-0" data-testid="going-live-items">
      {items.map((item) => (
        <li key={item.id} className="d-flex gap-2 mb-2" data-testid="going-live-item" data-item={item.id} data-done={String(item.done)}>
          <Badge bg={item.done ? 'success' : 'warning'} text={item.done ? undefined : 'dark'} className="align-self-start flex-shrink-0">
            {item.done ? 'Done' : 'To do'}
          </Badge>
          <div className="text-break">
            <strong>{item.title}</strong>
            <div className="text-muted" data-testid="going-live-detail">
              {item.detail}
            </div>
          </div>
        </li>
      ))}
    </ul>
  );
}

/**
 * On the overview: the README's Going live checklist, each item ticked by the server from the running settings (payment
 * provider, public URL, SMTP, TLS behind a proxy, the upstream and its price check, backups, a supervisor), with what is
 * missing. Once every item is done it folds to one line.
 */
export function GoingLiveCard() {
  const query = useQuery({ ...goingLiveQuery(), refetchOnMount: 'always' });
  const items = query.data?.items;
  const done = items?.filter((item) => item.done).length ?? 0;
  const allDone = items !== undefined && done === items.length;
  return (
    <Card className="mb-3" data-testid="going-live">
      <Card.Header className="d-flex flex-wrap align-items-center gap-2">
        <h3 className="h6 mb-0 me-auto">Going live</h3>
        {items && (
          <span className="small text-muted" data-testid="going-live-count">
            {done} of {items.length} done
          </span>
        )}
      </Card.Header>
      <Card.Body>
        {query.isPending && <Spinner animation="border" size="sm" />}
        <LoadError query={query} what="the Going live checklist" />
        {items &&
          (allDone ? (
            <details>
              <summary className="small">Every item is done</summary>
              <Items items={items} />
            </details>
          ) : (
            <Items items={items} />
          ))}
      </Card.Body>
    </Card>
  );
}
