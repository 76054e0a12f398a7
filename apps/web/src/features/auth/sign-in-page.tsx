import { useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { useForm } from 'react-hook-form';
import { Alert, Form, InputGroup } from 'react-bootstrap';
import { PASSWORD_REQUIRED, TG_ID_REQUIRED } from '@portal/contract';
import { login } from '../../api/auth.ts';
import { errorMessage } from '../../api/client.ts';
import { signInWith } from '../../api/session.ts';
import { sessionExpired } from '../../api/session-expiry.ts';
import { Captcha, type CaptchaHandle } from '../../components/captcha.tsx';
import { AuthCard, SubmitButton, useTimedMessage } from './auth-card.tsx';
import { PasswordInput } from '../../components/password-input.tsx';

export function SignInPage() {
  const { register, handleSubmit, formState } = useForm<{ tgId: string; password: string }>();
  const { errors } = formState;
  const captcha = useRef<CaptchaHandle>(null);
  const { show, alert } = useTimedMessage();
  const [expired] = useState(sessionExpired);

  const onSubmit = handleSubmit(async (values) => {
    try {
      const { accessToken } = await login({ ...values, captchaToken: await captcha.current!.getToken() });
      signInWith(accessToken);
    } catch (error) {
      show(errorMessage(error));
      captcha.current?.reset();
    }
  });

  return (
    <AuthCard
      title="Sign In"
      footer={
        <>
          Don&apos;t have an account? <Link to="/register">Sign Up</Link>
        </>
      }
    >
      {expired && (
        <Alert variant="info" className="py-2" data-testid="session-expired">
          Your session has expired. Sign in again to go back to where you were; what you typed is kept.
        </Alert>
      )}
      {alert}
      <Form onSubmit={(event) => void onSubmit(event)} noValidate>
        <Form.Group className="mb-3" controlId="tgId">
          <Form.Label>Telegram Username</Form.Label>
          <InputGroup hasValidation>
            <InputGroup.Text>@</InputGroup.Text>
            <Form.Control autoComplete="username" required isInvalid={!!errors.tgId} {...register('tgId', { required: TG_ID_REQUIRED })} />
            <Form.Control.Feedback type="invalid">{errors.tgId?.message}</Form.Control.Feedback>
          </InputGroup>
        </Form.Group>
        <PasswordInput
          label="Password"
          id="password"
          autoComplete="current-password"
          required
          error={errors.password?.message}
          {...register('password', { required: PASSWORD_REQUIRED })}
        />
        <div className="text-end mb-3">
          <Link to="/forgot">Forgot password?</Link>
        </div>
        <Captcha ref={captcha} invisible />
        <SubmitButton busy={formState.isSubmitting}>Sign In</SubmitButton>
      </Form>
    </AuthCard>
  );
}
