import { useRef } from 'react';
import { Link } from 'react-router-dom';
import { useForm } from 'react-hook-form';
import { Form } from 'react-bootstrap';
import { OTP_REQUIRED } from '@portal/contract';
import { verifyEmail } from '../../api/auth.ts';
import { errorMessage } from '../../api/client.ts';
import { clearStoredEmail, getStoredEmail, signInWith } from '../../api/session.ts';
import { Captcha, type CaptchaHandle } from '../../components/captcha.tsx';
import { AuthCard, SubmitButton, digitsOnly, useTimedMessage } from './auth-card.tsx';

export function VerifyEmailPage() {
  const { register, handleSubmit, formState } = useForm<{ OTP: string }>();
  const { errors } = formState;
  const captcha = useRef<CaptchaHandle>(null);
  const { show, alert } = useTimedMessage();
  const email = getStoredEmail();

  const onSubmit = handleSubmit(async ({ OTP }) => {
    try {
      const { accessToken } = await verifyEmail({ email, OTP, captchaToken: await captcha.current!.getToken() });
      clearStoredEmail();
      signInWith(accessToken, 'Email verified');
    } catch (error) {
      show(errorMessage(error));
      captcha.current?.reset();
    }
  });

  return (
    <AuthCard title="Verify Email" footer={<Link to="/">Back</Link>}>
      {email && <p className="text-muted small">Enter the OTP sent to {email}.</p>}
      {alert}
      <Form onSubmit={(event) => void onSubmit(event)} noValidate>
        <Form.Group className="mb-3" controlId="otp">
          <Form.Label>OTP</Form.Label>
          <Form.Control
            type="number"
            inputMode="numeric"
            autoComplete="one-time-code"
            required
            isInvalid={!!errors.OTP}
            {...register('OTP', { required: OTP_REQUIRED })}
            onInput={digitsOnly}
          />
          <Form.Control.Feedback type="invalid">{errors.OTP?.message}</Form.Control.Feedback>
        </Form.Group>
        <Captcha ref={captcha} />
        <SubmitButton busy={formState.isSubmitting}>Verify</SubmitButton>
      </Form>
    </AuthCard>
  );
}
