import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useQuery } from '@tanstack/react-query';
import { Alert, Badge, Button, Card, Form, InputGroup, Spinner, Table } from 'react-bootstrap';
import type { WebhookDelivery, WebhookSettingsResponse } from '@portal/contract';
import { errorMessage } from '../../api/client.ts';
import { useRotateWebhookSecret, useSaveWebhook, webhookQuery } from '../../api/reseller.ts';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { CopyButton } from '../../components/copy-button.tsx';
import { formatDate } from '../../components/format.ts';

const STATUS_VARIANTS: Record<WebhookDelivery['status'], string> = { pending: 'secondary', retrying: 'warning', delivered: 'success', failed: 'danger' };
const POLL_MS = 5_000;

/** A new secret, shown until dismissed: the server never shows it again. */
function SecretOnce({ secret, onDismiss }: { secret: string; onDismiss: () => void }) {
  return (
    <Alert variant="warning" dismissible onClose={onDismiss} data-testid="webhook-secret-once">
      <Alert.Heading as="h6">Your webhook signing secret</Alert.Heading>
      <InputGroup className="mb-2">
        <Form.Control readOnly value={secret} className="font-monospace" aria-label="Webhook signing secret" data-testid="webhook-secret" />
        <CopyButton text={secret} copied="Secret copied" aria-label="Copy signing secret" />
      </InputGroup>
      <div className="small">Copy it now: it will not be shown again. Check the x-portal-signature header of every webhook with it.</div>
    </Alert>
  );
}

function DeliveriesTable({ deliveries }: { deliveries: WebhookDelivery[] }) {
  return (
    <Table size="sm" responsive hover className="align-middle mb-0" data-testid="webhook-deliveries">
      <thead>
        <tr>
          <th>Event</th>
          <th>Status</th>
          <th className="text-end">Attempts</th>
          <th className="text-end">Last status code</th>
          <th>Time</th>
        </tr>
      </thead>
      <tbody>
        {deliveries.length === 0 && (
          <tr>
            <td colSpan={5} className="text-center text-muted">
              No deliveries yet
            </td>
          </tr>
        )}
        {deliveries.map((delivery) => (
          <tr key={delivery._id} data-testid="webhook-delivery-row" data-status={delivery.status}>
            <td>
              <code>{delivery.event}</code>
            </td>
            <td>
              <Badge bg={STATUS_VARIANTS[delivery.status]}>{delivery.status}</Badge>
              {delivery.lastError && <div className="small text-muted text-break">{delivery.lastError}</div>}
            </td>
            <td className="text-end">{delivery.attempts}</td>
            <td className="text-end">{delivery.lastStatusCode ?? '—'}</td>
            <td className="text-nowrap">{formatDate(delivery.deliveredAt ?? delivery.lastAttemptAt ?? delivery.createdAt)}</td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}

/** Account Setting's webhook: one URL, its signing secret (shown once when made) and the recent deliveries. */
export function WebhookCard() {
  // Deliveries still pending are fetched again until they settle; retries are hours apart, so they wait for Refresh.
  const settings = useQuery({
    ...webhookQuery(),
    refetchInterval: (query) => (query.state.data?.deliveries.some((d) => d.status === 'pending') ? POLL_MS : false),
  });
  if (settings.error) console.error('Failed to load the webhook settings', settings.error);
  const [secret, setSecret] = useState<string>();
  const save = useSaveWebhook();
  const rotation = useRotateWebhookSecret();
  const busy = save.isPending || rotation.isPending;
  const { register, handleSubmit, setError, formState } = useForm<{ url: string }>({ values: { url: settings.data?.url ?? '' } });
  /** A secret in the answer is shown until dismissed: it lives only in this card's state. */
  const showSecret = (answer: Pick<WebhookSettingsResponse, 'secret'>) => {
    if (answer.secret) setSecret(answer.secret);
  };

  // The server's refusal of a URL shows under the field too.
  const onSubmit = handleSubmit(({ url }) =>
    save.mutate({ url }, { onSuccess: showSecret, onError: (error) => setError('url', { message: errorMessage(error) }) }),
  );
  const remove = () => save.mutate({ url: null }, { onSuccess: showSecret });
  const [askingRotation, setAskingRotation] = useState(false);

  const data = settings.data;
  return (
    <Card className="mb-4" data-testid="webhook-card">
      <Card.Header className="d-flex align-items-center justify-content-between">
        <h6 className="mb-0">Webhook</h6>
        <Button size="sm" variant="outline-secondary" onClick={() => void settings.refetch()} disabled={settings.isFetching}>
          Refresh
        </Button>
      </Card.Header>
      <Card.Body>
        <p className="text-muted small">
          We POST{' '}
          {data?.events.map((event) => (
            <code key={event} className="me-1">
              {event}
            </code>
          ))}
          to this URL, signed with your signing secret. It must be https:// (or http:// to localhost while you develop).
        </p>
        <Form onSubmit={(event) => void onSubmit(event)} noValidate className="mb-3">
          <InputGroup hasValidation>
            <Form.Control
              type="url"
              aria-label="Webhook URL"
              placeholder="https://example.com/hooks/labels"
              isInvalid={Boolean(formState.errors.url)}
              {...register('url', { required: 'Enter the webhook URL' })}
            />
            <Button type="submit" disabled={busy}>
              Save
            </Button>
            <Form.Control.Feedback type="invalid" data-testid="webhook-url-error">
              {formState.errors.url?.message}
            </Form.Control.Feedback>
          </InputGroup>
        </Form>
        {secret && <SecretOnce secret={secret} onDismiss={() => setSecret(undefined)} />}
        {settings.isPending && <Spinner animation="border" size="sm" />}
        {data && (
          <div className="d-flex flex-wrap align-items-center gap-2 mb-3">
            <span data-testid="webhook-current-url">
              {data.url ? (
                <>
                  Sending to <code>{data.url}</code>
                </>
              ) : (
                <span className="text-muted">No webhook set</span>
              )}
            </span>
            {data.url && (
              <Button size="sm" variant="outline-danger" onClick={remove} disabled={busy}>
                Remove
              </Button>
            )}
            {data.hasSecret && (
              <Button size="sm" variant="outline-secondary" onClick={() => setAskingRotation(true)} disabled={busy}>
                Rotate secret
              </Button>
            )}
          </div>
        )}
        <ConfirmModal
          confirmation={
            askingRotation
              ? {
                  title: 'Rotate signing secret',
                  body: 'Create a new signing secret? The current one stops signing at once.',
                  confirmLabel: 'Rotate secret',
                  variant: 'danger',
                  run: (done) =>
                    rotation.mutate(undefined, {
                      onSuccess: (answer) => {
                        done();
                        showSecret(answer);
                      },
                    }),
                }
              : null
          }
          busy={rotation.isPending}
          onClose={() => setAskingRotation(false)}
        />
        <h6 className="small fw-semibold">Recent deliveries</h6>
        <DeliveriesTable deliveries={data?.deliveries ?? []} />
      </Card.Body>
    </Card>
  );
}
