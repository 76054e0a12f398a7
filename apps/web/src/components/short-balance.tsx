import { money } from './format.ts';

/** The toast of an order the balance cannot pay: the server's message, how much is missing, and the way to Deposits. */
export function shortBalanceToast(message: string, missing: number, onDeposits: () => void) {
  return (
    <span data-testid="short-balance">
      {message}: {money(missing)} more is needed.{' '}
      <a
        href="/deposits"
        onClick={(event) => {
          event.preventDefault();
          onDeposits();
        }}
      >
        Add balance in Deposits
      </a>
    </span>
  );
}
