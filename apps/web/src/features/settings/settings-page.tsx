import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useForm } from 'react-hook-form';
import { Badge, Button, Card, Col, Form, InputGroup, Row } from 'react-bootstrap';
import { toast } from '../../components/toast.tsx';
import { LABEL_FORMATS, LABEL_FORMAT_NAMES, PASSWORDS_DO_NOT_MATCH, type LabelFormat } from '@portal/contract';
import { useChangeEmail, useChangePassword, useRegenerateApiKey, useSetAutoVoid, useSetLabelFormat, useSetRecipientEmails } from '../../api/account.ts';
import { useCurrentUser } from '../../api/current-user.ts';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { CopyButton } from '../../components/copy-button.tsx';
import { PasswordInput } from '../../components/password-input.tsx';
import { TelegramCard } from './telegram-card.tsx';
import { WebhookCard } from './webhook-card.tsx';
import { money } from '../../components/format.ts';

function EmailCard() {
  const { user } = useCurrentUser();
  const navigate = useNavigate();
  const { register, handleSubmit } = useForm<{ email: string }>({ values: { email: user?.email ?? '' } });
  const change = useChangeEmail();
  const onSubmit = handleSubmit(({ email }) => change.mutate(email, { onSuccess: () => void navigate('/verify') }));
  return (
    <Card className="mb-4">
      <Card.Header as="h6">Email</Card.Header>
      <Card.Body>
        <p className="mb-2">
          {user?.email ?? 'No email set'}{' '}
          {user?.email && (user.emailVerified ? <Badge bg="success">Verified</Badge> : <Badge bg="warning">Not verified</Badge>)}
        </p>
        <Form onSubmit={(event) => void onSubmit(event)} noValidate>
          <InputGroup>
            <Form.Control type="email" aria-label="New email" placeholder="you@example.com" required {...register('email', { required: true })} />
            <Button type="submit" disabled={change.isPending}>
              {user?.email && !user.emailVerified ? 'Resend OTP' : 'Send OTP'}
            </Button>
          </InputGroup>
          <Form.Text>A code is mailed to this address; enter it on the next screen to verify it. A verified email lets you reset your password.</Form.Text>
        </Form>
      </Card.Body>
    </Card>
  );
}

function ApiKeyCard() {
  const { user } = useCurrentUser();
  const regeneration = useRegenerateApiKey();
  const [asking, setAsking] = useState(false);
  return (
    <Card className="mb-4">
      <Card.Header as="h6">API Key</Card.Header>
      <Card.Body>
        <InputGroup>
          <Form.Control readOnly value={user?.api_key ?? ''} aria-label="API key" data-testid="api-key" />
          <CopyButton text={user?.api_key ?? ''} copied="API key copied" />
          <Button variant="outline-danger" onClick={() => setAsking(true)} disabled={regeneration.isPending}>
            Regenerate
          </Button>
        </InputGroup>
        <ConfirmModal
          confirmation={
            asking
              ? {
                  title: 'Regenerate API key',
                  body: 'Regenerate your API key? The current key stops working at once.',
                  confirmLabel: 'Regenerate',
                  variant: 'danger',
                  run: (done) => regeneration.mutate(undefined, { onSuccess: done }),
                }
              : null
          }
          busy={regeneration.isPending}
          onClose={() => setAsking(false)}
        />
      </Card.Body>
    </Card>
  );
}

function LabelFormatCard() {
  const { user } = useCurrentUser();
  const save = useSetLabelFormat();
  // Shown chosen at once; the saved choice comes back with the access check (or stays as it was if saving failed).
  const [chosen, setChosen] = useState<LabelFormat | null>(null);
  const current = chosen ?? user?.labelFormat;
  return (
    <Card className="mb-4">
      <Card.Header as="h6">Label Format</Card.Header>
      <Card.Body>
        <Form.Group controlId="labelFormat">
          <Form.Label className="visually-hidden">Label format</Form.Label>
          {LABEL_FORMATS.map((format) => (
            <Form.Check
              key={format}
              type="radio"
              id={`label-format-${format}`}
              name="labelFormat"
              label={LABEL_FORMAT_NAMES[format]}
              checked={current === format}
              disabled={!user || save.isPending}
              onChange={() => {
                setChosen(format);
                save.mutate(format, { onError: () => setChosen(null) });
              }}
            />
          ))}
        </Form.Group>
        <Form.Text>Single labels, bulk order files and selected orders download in this format.</Form.Text>
      </Card.Body>
    </Card>
  );
}

/** An account switch saved as it is flipped (its answer read back with the access check). */
function SwitchCard(props: { title: string; id: string; label: string; checked: boolean; busy: boolean; onChange: (on: boolean) => void; help: string }) {
  const { user } = useCurrentUser();
  return (
    <Card className="mb-4">
      <Card.Header as="h6">{props.title}</Card.Header>
      <Card.Body>
        <Form.Check
          type="switch"
          id={props.id}
          label={props.label}
          checked={props.checked}
          disabled={!user || props.busy}
          onChange={(event) => props.onChange(event.currentTarget.checked)}
        />
        <Form.Text>{props.help}</Form.Text>
      </Card.Body>
    </Card>
  );
}

function AutoVoidCard() {
  const { user } = useCurrentUser();
  const save = useSetAutoVoid();
  return (
    <SwitchCard
      title="Unused Labels"
      id="auto-void"
      label="Refund unused labels automatically"
      checked={user?.autoVoid ?? true}
      busy={save.isPending}
      onChange={(on) => save.mutate(on)}
      help="A label the carrier never scanned is refunded to your balance before its refund window closes, unless it is on a SCAN form or a pickup."
    />
  );
}

function RecipientEmailsCard() {
  const { user } = useCurrentUser();
  const save = useSetRecipientEmails();
  return (
    <SwitchCard
      title="Recipient Emails"
      id="recipient-emails"
      label="Email recipients when their parcel moves"
      checked={user?.recipientEmails ?? false}
      busy={save.isPending}
      onChange={(on) => save.mutate(on)}
      help="A label with a recipient email (the To side's Email on Create Order, the ToEmail column of CSV orders, a field of the API) mails its recipient once in transit, once out for delivery and once delivered, with its tracking page and a link to stop the mails."
    />
  );
}

function PasswordCard() {
  const { register, handleSubmit, reset } = useForm<{ currentPassword: string; newPassword: string; confirmPassword: string }>();
  const change = useChangePassword();
  const onSubmit = handleSubmit(({ currentPassword, newPassword, confirmPassword }) => {
    if (newPassword !== confirmPassword) return toast.error(PASSWORDS_DO_NOT_MATCH);
    change.mutate({ currentPassword, newPassword }, { onSuccess: () => reset() });
  });
  return (
    <Card className="mb-4">
      <Card.Header as="h6">Change Password</Card.Header>
      <Card.Body>
        <Form onSubmit={(event) => void onSubmit(event)} noValidate>
          <PasswordInput label="Current Password" id="currentPassword" autoComplete="current-password" {...register('currentPassword', { required: true })} />
          <PasswordInput label="New Password" id="newPassword" autoComplete="new-password" {...register('newPassword', { required: true })} />
          <PasswordInput label="Confirm New Password" id="confirmPassword" autoComplete="new-password" {...register('confirmPassword', { required: true })} />
          <Button type="submit" disabled={change.isPending}>
            Change Password
          </Button>
        </Form>
      </Card.Body>
    </Card>
  );
}

export function SettingsPage() {
  const { user } = useCurrentUser();
  return (
    <>
      <h1 className="h4 mb-4">Account Setting</h1>
      <Row>
        <Col lg={6}>
          <Card className="mb-4">
            <Card.Header as="h6">Profile</Card.Header>
            <Card.Body>
              <dl className="row mb-0">
                <dt className="col-sm-5">Name</dt>
                <dd className="col-sm-7" data-testid="profile-name">
                  {user?.username}
                </dd>
                <dt className="col-sm-5">Telegram Username</dt>
                <dd className="col-sm-7">@{user?.tgId}</dd>
                <dt className="col-sm-5">Balance</dt>
                <dd className="col-sm-7 mb-0">{user ? money(user.balance) : ''}</dd>
              </dl>
            </Card.Body>
          </Card>
          <EmailCard />
          <TelegramCard />
        </Col>
        <Col lg={6}>
          <ApiKeyCard />
          <LabelFormatCard />
          <AutoVoidCard />
          <RecipientEmailsCard />
          <PasswordCard />
        </Col>
      </Row>
      <WebhookCard />
    </>
  );
}
