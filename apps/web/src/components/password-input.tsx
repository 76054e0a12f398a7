import { useState } from 'react';
import { Button, Form, InputGroup } from 'react-bootstrap';

/** A password input with a show/hide toggle; `error` is shown under it and marks it invalid. */
export function PasswordInput(props: React.ComponentProps<typeof Form.Control> & { label: string; error?: string }) {
  const [visible, setVisible] = useState(false);
  const { label, id, error, ...input } = props;
  return (
    <Form.Group className="mb-3" controlId={id}>
      <Form.Label>{label}</Form.Label>
      <InputGroup hasValidation>
        <Form.Control type={visible ? 'text' : 'password'} isInvalid={!!error} {...input} />
        <Button variant="outline-secondary" onClick={() => setVisible((v) => !v)} aria-label={visible ? `Hide ${label}` : `Show ${label}`}>
          {visible ? 'Hide' : 'Show'}
        </Button>
        <Form.Control.Feedback type="invalid">{error}</Form.Control.Feedback>
      </InputGroup>
    </Form.Group>
  );
}
