/** Timestamps are ISO-8601 UTC strings, which sort and compare the same way on SQLite and PostgreSQL. */
type Timestamp = string;
/** Booleans are 0/1 integers on both dialects. */
type Flag = number;

export interface UsersTable {
  id: string;
  username: string;
  tg_id: string;
  tg_id_lower: string;
  password_hash: string;
  email: string | null;
  email_verified: Flag;
  balance_cents: number;
  api_key: string;
  token_version: number;
  created_at: Timestamp;
}

/** Every change of a balance, with the balance it left behind. */
export interface LedgerTable {
  id: string;
  user_id: string;
  amount_cents: number;
  balance_after_cents: number;
  kind: string;
  reference: string | null;
  note: string;
  created_at: Timestamp;
}

export interface OneTimeCodesTable {
  id: string;
  user_id: string;
  purpose: 'verify_email' | 'reset_password';
  email: string;
  code_hash: string;
  attempts: number;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  created_at: Timestamp;
}

export interface CaptchaUsesTable {
  key: string;
  expires_at: Timestamp;
}

export interface OutboxMailTable {
  id: string;
  to_address: string;
  subject: string;
  body: string;
  created_at: Timestamp;
}

export interface ContentTable {
  key: string;
  value: string;
}

export interface FaqsTable {
  id: string;
  position: number;
  question: string;
  answer: string;
}

export interface Database {
  users: UsersTable;
  ledger: LedgerTable;
  one_time_codes: OneTimeCodesTable;
  captcha_uses: CaptchaUsesTable;
  outbox_mail: OutboxMailTable;
  content: ContentTable;
  faqs: FaqsTable;
}
