import { useState, type ReactNode } from 'react';
import { Button, Form, InputGroup } from 'react-bootstrap';

/** A password input with a show/hide toggle; `error` is shown under it and marks it invalid; `hint` (a rule) is shown under it from the start. */
export function PasswordInput(props: React.ComponentProps<typeof Form.Control> & { label: string; error?: string; hint?: ReactNode }) {
  const [visible, setVisible] = useState(false);
  const { label, id, error, hint, ...input } = props;
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <Form.Group className="mb-3" controlId={id}>
      <Form.Label>{label}</Form.Label>
      <InputGroup hasValidation>
        <Form.Control type={visible ? 'text' : 'password'} isInvalid={!!error} aria-describedby={hintId} {...input} />
        <Button variant="outline-secondary" onClick={() => setVisible((v) => !v)} aria-label={visible ? `Hide ${label}` : `Show ${label}`}>
          {visible ? 'Hide' : 'Show'}
        </Button>
        <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>
      </InputGroup>
      {hint && (
        <Form.Text id={hintId} data-testid="password-hint">
          {hint}
        </Form.Text>
      )}
    </Form.Group>
  );
}
