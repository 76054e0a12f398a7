import { useRef } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { useForm } from 'react-hook-form';
import { Form, InputGroup } from 'react-bootstrap';
import { toast } from 'react-toastify';
import { ACCOUNT_CREATED } from '@portal/contract';
import { register as registerAccount } from '../../api/auth.ts';
import { errorMessage } from '../../api/client.ts';
import { Captcha, type CaptchaHandle } from '../../components/captcha.tsx';
import { AuthCard, SubmitButton, useTimedMessage } from './auth-card.tsx';
import { PasswordInput } from '../../components/password-input.tsx';

export function SignUpPage() {
  const { register, handleSubmit, formState } = useForm<{ username: string; tgId: string; password: string }>();
  const captcha = useRef<CaptchaHandle>(null);
  const navigate = useNavigate();
  const { show, alert } = useTimedMessage();

  const onSubmit = handleSubmit(async (values) => {
    try {
      await registerAccount({ ...values, captchaToken: await captcha.current!.getToken() });
      toast.success(ACCOUNT_CREATED);
      await new Promise((resolve) => setTimeout(resolve, 2500));
      navigate('/login');
    } catch (error) {
      show(errorMessage(error));
      captcha.current?.reset();
    }
  });

  return (
    <AuthCard
      title="Sign Up"
      footer={
        <>
          Already have an account? <Link to="/login">Sign In</Link>
        </>
      }
    >
      {alert}
      <Form onSubmit={onSubmit} noValidate>
        <Form.Group className="mb-3" controlId="username">
          <Form.Label>Name</Form.Label>
          <Form.Control autoComplete="name" required {...register('username', { required: true })} />
        </Form.Group>
        <Form.Group className="mb-3" controlId="tgId">
          <Form.Label>Telegram Username</Form.Label>
          <InputGroup>
            <InputGroup.Text>@</InputGroup.Text>
            <Form.Control autoComplete="username" required {...register('tgId', { required: true })} />
          </InputGroup>
        </Form.Group>
        <PasswordInput label="Password" id="password" autoComplete="new-password" required {...register('password', { required: true })} />
        <p className="small text-muted">
          By signing up you agree to our <Link to="/tos">Terms of Service</Link>.
        </p>
        <Captcha ref={captcha} invisible />
        <SubmitButton busy={formState.isSubmitting}>Sign Up</SubmitButton>
      </Form>
    </AuthCard>
  );
}
