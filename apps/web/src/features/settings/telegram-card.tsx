import { useQuery } from '@tanstack/react-query';
import { Badge, Button, Card, Form, Spinner } from 'react-bootstrap';
import { TELEGRAM_LINK_TEXT, TELEGRAM_TOPICS, TELEGRAM_TOPIC_LABELS, type TelegramTopic } from '@portal/contract';
import { publicConfigQuery } from '../../api/auth.ts';
import { telegramLinkQuery, telegramQuery, useSaveTelegramTopics, useUnlinkTelegram } from '../../api/telegram.ts';
import { formatDate } from '../../components/format.ts';

/** The link to press while no chat is linked: a deep link with a fresh one-time token. */
function LinkButton() {
  const link = useQuery(telegramLinkQuery());
  if (!link.data) return null;
  return (
    // A plain link (react-bootstrap's Button would make it role=button).
    <a className="btn btn-primary btn-sm" href={link.data.url} target="_blank" rel="noreferrer">
      {TELEGRAM_LINK_TEXT}
    </a>
  );
}

/** Account Setting's Telegram: whether a chat is linked (with Unlink), and which messages it gets. Shown only when the shop has a bot. */
export function TelegramCard() {
  const config = useQuery(publicConfigQuery());
  const enabled = Boolean(config.data?.telegramBot);
  // Fetched again when the page regains focus, so a chat linked in Telegram shows on return.
  const settings = useQuery({ ...telegramQuery(), enabled });
  if (settings.error) console.error('Failed to load the Telegram settings', settings.error);
  const save = useSaveTelegramTopics();
  const unlink = useUnlinkTelegram();
  const busy = save.isPending || unlink.isPending;
  if (!enabled) return null;

  const toggle = (topic: TelegramTopic, on: boolean) => {
    if (settings.data) save.mutate({ topics: { ...settings.data.topics, [topic]: on } });
  };

  const data = settings.data;
  return (
    <Card className="mb-4" data-testid="telegram-card">
      <Card.Header className="d-flex align-items-center justify-content-between">
        <h6 className="mb-0">Telegram</h6>
        <Button size="sm" variant="outline-secondary" onClick={() => void settings.refetch()} disabled={settings.isFetching}>
          Refresh
        </Button>
      </Card.Header>
      <Card.Body>
        {!data && <Spinner animation="border" size="sm" />}
        {data && (
          <>
            <div className="d-flex flex-wrap align-items-center gap-2 mb-3" data-testid="telegram-status">
              {data.linked ? (
                <>
                  <Badge bg="success">Linked</Badge>
                  <span>
                    Messages go to {data.chatUsername ? `@${data.chatUsername}` : 'your chat'} with @{data.bot}
                    {data.linkedAt && <span className="text-muted small"> since {formatDate(data.linkedAt)}</span>}
                  </span>
                  <Button size="sm" variant="outline-danger" onClick={() => unlink.mutate()} disabled={busy}>
                    Unlink
                  </Button>
                </>
              ) : (
                <>
                  <Badge bg="secondary">Not linked</Badge>
                  <span className="text-muted">Open the link in Telegram and press Start.</span>
                  <LinkButton />
                </>
              )}
            </div>
            <h6 className="small fw-semibold">Tell me when</h6>
            {TELEGRAM_TOPICS.map((topic) => (
              <Form.Check
                key={topic}
                type="switch"
                id={`telegram-${topic}`}
                label={TELEGRAM_TOPIC_LABELS[topic]}
                checked={data.topics[topic]}
                disabled={busy}
                onChange={(event) => toggle(topic, event.currentTarget.checked)}
              />
            ))}
          </>
        )}
      </Card.Body>
    </Card>
  );
}
