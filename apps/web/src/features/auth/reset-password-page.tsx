import { useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { useForm } from 'react-hook-form';
import { Form } from 'react-bootstrap';
import { PASSWORDS_DO_NOT_MATCH } from '@portal/contract';
import { resetPassword } from '../../api/auth.ts';
import { errorMessage } from '../../api/client.ts';
import { clearStoredEmail, getStoredEmail, signInWith } from '../../api/session.ts';
import { Captcha, type CaptchaHandle } from '../../components/captcha.tsx';
import { AuthCard, SubmitButton, digitsOnly, useTimedMessage } from './auth-card.tsx';
import { PasswordInput } from '../../components/password-input.tsx';

export function ResetPasswordPage() {
  // Opened directly (a bookmark, another browser) there is no email from Forgot Password: ask for it.
  const [storedEmail] = useState(getStoredEmail);
  const { register, handleSubmit, formState } = useForm<{ email: string; OTP: string; newPassword: string; confirmPassword: string }>();
  const captcha = useRef<CaptchaHandle>(null);
  const { show, alert } = useTimedMessage();

  const onSubmit = handleSubmit(async ({ email, OTP, newPassword, confirmPassword }) => {
    if (newPassword !== confirmPassword) return show(PASSWORDS_DO_NOT_MATCH);
    try {
      const { accessToken } = await resetPassword({ email: storedEmail || email.trim(), OTP, newPassword, captchaToken: await captcha.current!.getToken() });
      clearStoredEmail();
      signInWith(accessToken, 'Password changed');
    } catch (error) {
      show(errorMessage(error));
      captcha.current?.reset();
    }
  });

  return (
    <AuthCard title="Reset Password" footer={<Link to="/login">Back to Sign In</Link>}>
      {alert}
      <Form onSubmit={(event) => void onSubmit(event)} noValidate>
        {!storedEmail && (
          <Form.Group className="mb-3" controlId="email">
            <Form.Label>Email</Form.Label>
            <Form.Control type="email" autoComplete="email" required {...register('email', { required: true })} />
            <Form.Text>
              The email the OTP was sent to. No OTP yet? Start again from <Link to="/forgot">Forgot Password</Link>.
            </Form.Text>
          </Form.Group>
        )}
        <PasswordInput
          label="OTP"
          id="otp"
          inputMode="numeric"
          autoComplete="one-time-code"
          required
          {...register('OTP', { required: true, pattern: /^\d*$/ })}
          onInput={digitsOnly}
        />
        <PasswordInput label="New Password" id="newPassword" autoComplete="new-password" required {...register('newPassword', { required: true })} />
        <PasswordInput
          label="Confirm New Password"
          id="confirmPassword"
          autoComplete="new-password"
          required
          {...register('confirmPassword', { required: true })}
        />
        <Captcha ref={captcha} />
        <SubmitButton busy={formState.isSubmitting}>Reset Password</SubmitButton>
      </Form>
    </AuthCard>
  );
}
