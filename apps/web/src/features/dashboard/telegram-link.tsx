import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { TELEGRAM_LINK_TEXT } from '@portal/contract';
import { telegramLinkQuery } from '../../api/telegram.ts';

/** The Orders card's link to the shop's bot: a deep link with a fresh one-time token, or, once a chat is linked, where to manage it. */
export function TelegramLink({ bot }: { bot: string }) {
  const link = useQuery(telegramLinkQuery());
  if (link.error) console.error('Failed to make the Telegram link', link.error);
  if (!link.data) return null;
  if (link.data.linked) {
    return (
      <Link to="/settings" className="small" data-testid="telegram-linked" title="Choose your messages or unlink in Account Setting">
        Telegram linked
      </Link>
    );
  }
  return (
    <a
      href={link.data.url}
      target="_blank"
      rel="noreferrer"
      className="small"
      data-testid="telegram-link"
      title={`Open @${bot} and press Start: it tells you when your orders complete`}
    >
      {TELEGRAM_LINK_TEXT}
    </a>
  );
}
