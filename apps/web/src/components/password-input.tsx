import { useState } from 'react';
import { Button, Form, InputGroup } from 'react-bootstrap';

/** A password input with a show/hide toggle. */
export function PasswordInput(props: React.ComponentProps<typeof Form.Control> & { label: string }) {
  const [visible, setVisible] = useState(false);
  const { label, id, ...input } = props;
  return (
    <Form.Group className="mb-3" controlId={id}>
      <Form.Label>{label}</Form.Label>
      <InputGroup>
        <Form.Control type={visible ? 'text' : 'password'} {...input} />
        <Button variant="outline-secondary" onClick={() => setVisible((v) => !v)} aria-label={visible ? `Hide ${label}` : `Show ${label}`}>
          {visible ? 'Hide' : 'Show'}
        </Button>
      </InputGroup>
    </Form.Group>
  );
}
