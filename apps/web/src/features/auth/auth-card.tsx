import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { Alert, Button, Card } from 'react-bootstrap';

export function AuthCard({ title, children, footer }: { title: string; children: ReactNode; footer?: ReactNode }) {
  return (
    <div className="auth-page">
      <Card className="auth-card shadow-sm">
        <Card.Body className="p-4">
          <h1 className="h4 mb-4 text-center">{title}</h1>
          {children}
        </Card.Body>
        {footer && <Card.Footer className="text-center bg-white">{footer}</Card.Footer>}
      </Card>
    </div>
  );
}

type Message = { text: string; variant: 'danger' | 'success' };

/** Messages on auth forms disappear after 3 seconds. */
export function useTimedMessage() {
  const [message, setMessage] = useState<Message | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const show = useCallback((text: string, variant: Message['variant'] = 'danger') => {
    clearTimeout(timer.current);
    setMessage({ text, variant });
    timer.current = setTimeout(() => setMessage(null), 3000);
  }, []);
  useEffect(() => () => clearTimeout(timer.current), []);
  const alert = message && (
    <Alert variant={message.variant} className="py-2" role="alert">
      {message.text}
    </Alert>
  );
  return { show, alert };
}

export function SubmitButton({ busy, children }: { busy: boolean; children: ReactNode }) {
  return (
    <Button type="submit" className="w-100" disabled={busy}>
      {busy ? 'Please wait...' : children}
    </Button>
  );
}

/** OTP fields accept numbers only. */
export function digitsOnly(event: React.FormEvent<HTMLInputElement | HTMLTextAreaElement>) {
  const input = event.currentTarget;
  const digits = input.value.replace(/\D/g, '');
  if (digits !== input.value) input.value = digits;
}
