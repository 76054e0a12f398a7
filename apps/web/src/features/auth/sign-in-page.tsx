import { useRef } from 'react';
import { Link } from 'react-router-dom';
import { useForm } from 'react-hook-form';
import { Form, InputGroup } from 'react-bootstrap';
import { login } from '../../api/auth.ts';
import { errorMessage } from '../../api/client.ts';
import { signInWith } from '../../api/session.ts';
import { Captcha, type CaptchaHandle } from '../../components/captcha.tsx';
import { AuthCard, SubmitButton, useTimedMessage } from './auth-card.tsx';
import { PasswordInput } from '../../components/password-input.tsx';

export function SignInPage() {
  const { register, handleSubmit, formState } = useForm<{ tgId: string; password: string }>();
  const captcha = useRef<CaptchaHandle>(null);
  const { show, alert } = useTimedMessage();

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
      {alert}
      <Form onSubmit={onSubmit} noValidate>
        <Form.Group className="mb-3" controlId="tgId">
          <Form.Label>Telegram Username</Form.Label>
          <InputGroup>
            <InputGroup.Text>@</InputGroup.Text>
            <Form.Control autoComplete="username" required {...register('tgId', { required: true })} />
          </InputGroup>
        </Form.Group>
        <PasswordInput label="Password" id="password" autoComplete="current-password" required {...register('password', { required: true })} />
        <div className="text-end mb-3">
          <Link to="/forgot">Forgot password?</Link>
        </div>
        <Captcha ref={captcha} invisible />
        <SubmitButton busy={formState.isSubmitting}>Sign In</SubmitButton>
      </Form>
    </AuthCard>
  );
}
