import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useForm } from 'react-hook-form';
import { Badge, Button, Card, Col, Form, InputGroup, Row } from 'react-bootstrap';
import { toast } from '../../components/toast.tsx';
import { PASSWORDS_DO_NOT_MATCH } from '@portal/contract';
import { changeEmail, changePassword, regenerateApiKey } from '../../api/auth.ts';
import { errorMessage } from '../../api/client.ts';
import { useCurrentUser } from '../../api/current-user.ts';
import { setStoredEmail, setToken } from '../../api/session.ts';
import { CopyButton } from '../../components/copy-button.tsx';
import { PasswordInput } from '../../components/password-input.tsx';
import { TelegramCard } from './telegram-card.tsx';
import { WebhookCard } from './webhook-card.tsx';
import { money } from '../../components/format.ts';
import { asyncHandler } from '../../components/async-handler.ts';

function EmailCard() {
  const { user } = useCurrentUser();
  const navigate = useNavigate();
  const { register, handleSubmit, formState } = useForm<{ email: string }>({ values: { email: user?.email ?? '' } });
  const onSubmit = handleSubmit(async ({ email }) => {
    try {
      const { message } = await changeEmail(email);
      toast.success(message);
      setStoredEmail(email);
      void navigate('/verify');
    } catch (error) {
      toast.error(errorMessage(error));
    }
  });
  return (
    <Card className="mb-4">
      <Card.Header as="h6">Email</Card.Header>
      <Card.Body>
        <p className="mb-2">
          {user?.email ?? 'No email set'}{' '}
          {user?.email && (user.emailVerified ? <Badge bg="success">Verified</Badge> : <Badge bg="warning">Not verified</Badge>)}
        </p>
        <Form onSubmit={asyncHandler(onSubmit)} noValidate>
          <InputGroup>
            <Form.Control type="email" aria-label="New email" placeholder="you@example.com" required {...register('email', { required: true })} />
            <Button type="submit" disabled={formState.isSubmitting}>
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
  const { user, refresh } = useCurrentUser();
  const [busy, setBusy] = useState(false);
  const regenerate = async () => {
    if (!window.confirm('Regenerate your API key? The current key stops working at once.')) return;
    setBusy(true);
    try {
      await regenerateApiKey();
      await refresh();
      toast.success('API key regenerated');
    } catch (error) {
      toast.error(errorMessage(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card className="mb-4">
      <Card.Header as="h6">API Key</Card.Header>
      <Card.Body>
        <InputGroup>
          <Form.Control readOnly value={user?.api_key ?? ''} aria-label="API key" data-testid="api-key" />
          <CopyButton text={user?.api_key ?? ''} copied="API key copied" />
          <Button variant="outline-danger" onClick={asyncHandler(regenerate)} disabled={busy}>
            Regenerate
          </Button>
        </InputGroup>
      </Card.Body>
    </Card>
  );
}

function PasswordCard() {
  const { register, handleSubmit, reset, formState } = useForm<{ currentPassword: string; newPassword: string; confirmPassword: string }>();
  const onSubmit = handleSubmit(async ({ currentPassword, newPassword, confirmPassword }) => {
    if (newPassword !== confirmPassword) return void toast.error(PASSWORDS_DO_NOT_MATCH);
    try {
      const { message, accessToken } = await changePassword({ currentPassword, newPassword });
      setToken(accessToken); // other sessions are signed out; this one keeps going
      toast.success(message);
      reset();
    } catch (error) {
      toast.error(errorMessage(error));
    }
  });
  return (
    <Card className="mb-4">
      <Card.Header as="h6">Change Password</Card.Header>
      <Card.Body>
        <Form onSubmit={asyncHandler(onSubmit)} noValidate>
          <PasswordInput label="Current Password" id="currentPassword" autoComplete="current-password" {...register('currentPassword', { required: true })} />
          <PasswordInput label="New Password" id="newPassword" autoComplete="new-password" {...register('newPassword', { required: true })} />
          <PasswordInput label="Confirm New Password" id="confirmPassword" autoComplete="new-password" {...register('confirmPassword', { required: true })} />
          <Button type="submit" disabled={formState.isSubmitting}>
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
                <dd className="col-sm-7" data-testid="profile-name">{user?.username}</dd>
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
          <PasswordCard />
        </Col>
      </Row>
      <WebhookCard />
    </>
  );
}
