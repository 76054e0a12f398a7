import { useRef } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { useForm } from 'react-hook-form';
import { Form, InputGroup } from 'react-bootstrap';
import { toast } from '../../components/toast.tsx';
import { ACCOUNT_CREATED, NAME_REQUIRED, PASSWORD_MAX, PASSWORD_MIN, PASSWORD_REQUIRED, TG_ID_REQUIRED } from '@portal/contract';
import { register as registerAccount } from '../../api/auth.ts';
import { errorMessage } from '../../api/client.ts';
import { Captcha, type CaptchaHandle } from '../../components/captcha.tsx';
import { AuthCard, SubmitButton, useTimedMessage } from './auth-card.tsx';
import { PasswordInput } from '../../components/password-input.tsx';

export function SignUpPage() {
  const { register, handleSubmit, formState } = useForm<{ username: string; tgId: string; password: string }>();
  const { errors } = formState;
  const captcha = useRef<CaptchaHandle>(null);
  const navigate = useNavigate();
  const { show, alert } = useTimedMessage();

  const onSubmit = handleSubmit(async (values) => {
    try {
      await registerAccount({ ...values, captchaToken: await captcha.current!.getToken() });
      toast.success(ACCOUNT_CREATED);
      await new Promise((resolve) => setTimeout(resolve, 2500));
      void navigate('/login');
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
      <Form onSubmit={(event) => void onSubmit(event)} noValidate>
        <Form.Group className="mb-3" controlId="username">
          <Form.Label>Name</Form.Label>
          <Form.Control
            autoComplete="name"
            required
            isInvalid={!!errors.username}
            {...register('username', { required: NAME_REQUIRED, validate: (v) => v.trim() !== '' || NAME_REQUIRED })}
          />
          <Form.Control.Feedback type="invalid">{errors.username?.message}</Form.Control.Feedback>
        </Form.Group>
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
          autoComplete="new-password"
          required
          error={errors.password?.message}
          hint={`At least ${PASSWORD_MIN} characters.`}
          {...register('password', {
            required: PASSWORD_REQUIRED,
            minLength: { value: PASSWORD_MIN, message: `Password must be at least ${PASSWORD_MIN} characters` },
            maxLength: { value: PASSWORD_MAX, message: `Password must be at most ${PASSWORD_MAX} characters` },
          })}
        />
        <p className="small text-muted">
          By signing up you agree to our <Link to="/tos">Terms of Service</Link>.
        </p>
        <Captcha ref={captcha} invisible />
        <SubmitButton busy={formState.isSubmitting}>Sign Up</SubmitButton>
      </Form>
    </AuthCard>
  );
}
