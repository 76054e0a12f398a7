import { useRef } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { useForm } from 'react-hook-form';
import { Form } from 'react-bootstrap';
import { forgotPassword } from '../../api/auth.ts';
import { errorMessage } from '../../api/client.ts';
import { setStoredEmail } from '../../api/session.ts';
import { Captcha, type CaptchaHandle } from '../../components/captcha.tsx';
import { AuthCard, SubmitButton, useTimedMessage } from './auth-card.tsx';

export function ForgotPasswordPage() {
  const { register, handleSubmit, formState } = useForm<{ email: string }>();
  const captcha = useRef<CaptchaHandle>(null);
  const navigate = useNavigate();
  const { show, alert } = useTimedMessage();

  const onSubmit = handleSubmit(async ({ email }) => {
    try {
      const { message } = await forgotPassword({ email, captchaToken: await captcha.current!.getToken() });
      show(message, 'success');
      setStoredEmail(email);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      void navigate('/reset');
    } catch (error) {
      show(errorMessage(error));
      captcha.current?.reset();
    }
  });

  return (
    <AuthCard title="Forgot Password" footer={<Link to="/login">Back to Sign In</Link>}>
      <p className="text-muted small">Enter your email to get reset password OTP on your registered email.</p>
      {alert}
      <Form onSubmit={(event) => void onSubmit(event)} noValidate>
        <Form.Group className="mb-3" controlId="email">
          <Form.Label>Email</Form.Label>
          <Form.Control type="email" autoComplete="email" required {...register('email', { required: true })} />
        </Form.Group>
        <Captcha ref={captcha} />
        <SubmitButton busy={formState.isSubmitting}>Send OTP</SubmitButton>
      </Form>
    </AuthCard>
  );
}
