import { Button, type ButtonProps } from 'react-bootstrap';
import { toast } from './toast.tsx';

/** Copies `text` to the clipboard and says so in a toast; the clipboard needs a secure page (https or localhost). */
export function CopyButton({
  text,
  copied = 'Copied',
  children = 'Copy',
  variant = 'outline-secondary',
  ...props
}: ButtonProps & { text: string; copied?: string }) {
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      toast.success(copied);
    } catch {
      toast.error('Could not copy: select the text and copy it');
    }
  };
  return (
    <Button variant={variant} onClick={() => void copy()} {...props}>
      {children}
    </Button>
  );
}
