-- Version 0.2 of the public views: natural SQL (docs/data-model.md "Amounts", CHANGELOG.md 0.2.0).
-- `amount` and `balance_after` become numbers (SQLite REAL) computed from the exact text the tables
-- keep, so `amount > 1000`, max, min and ORDER BY act on values; the exact signed decimal text moves
-- to `amount_text` / `balance_after_text`; `amount_minor` stays (exact totals: sum(amount_minor)).
-- Each date-time analysts group by gets its NZ calendar date (Pacific/Auckland, from nz_offsets):
-- v_transactions.value_date, v_balances.date, v_statements.start_date / end_date,
-- v_payments.created_date. New columns go at the end: positions of 0.1 columns do not move.
-- Only views change: every row of every table stays as it was.
DROP VIEW IF EXISTS `v_transactions`;
--> statement-breakpoint
CREATE VIEW `v_transactions` AS
SELECT
  t.consent_id, t.bank, t.account_id, t.transaction_id, t.status,
  t.booking_date_time, t.booking_date, t.value_date_time,
  CAST(t.amount AS REAL) AS amount, t.amount_minor, t.currency, t.credit_debit_indicator,
  t.description, t.merchant_name, t.merchant_category_code,
  t.creditor_name, t.debtor_name,
  t.creditor_particulars, t.creditor_code, t.creditor_reference,
  t.debtor_particulars, t.debtor_code, t.debtor_reference,
  t.bank_transaction_code, t.bank_transaction_subcode, t.proprietary_code,
  CAST(t.balance_after AS REAL) AS balance_after, t.counterparty_account,
  t.first_seen_at, t.last_seen_at,
  t.amount AS amount_text,
  t.balance_after AS balance_after_text,
  -- The NZ date of an instant stored as UTC ISO 8601: the offset in force then (nz_offsets).
  date(t.value_date_time, (SELECT o.offset_minutes FROM nz_offsets o WHERE o.utc_from <= t.value_date_time ORDER BY o.utc_from DESC LIMIT 1) || ' minutes') AS value_date
FROM transactions t
WHERE t.removed_at IS NULL;
--> statement-breakpoint
DROP VIEW IF EXISTS `v_balances`;
--> statement-breakpoint
CREATE VIEW `v_balances` AS
SELECT
  b.bank, b.account_id, b.type, CAST(b.amount AS REAL) AS amount, b.amount_minor, b.currency,
  b.credit_debit_indicator, b.date_time, b.fetched_at,
  b.amount AS amount_text,
  date(b.date_time, (SELECT o.offset_minutes FROM nz_offsets o WHERE o.utc_from <= b.date_time ORDER BY o.utc_from DESC LIMIT 1) || ' minutes') AS date
FROM balances b;
--> statement-breakpoint
DROP VIEW IF EXISTS `v_statements`;
--> statement-breakpoint
CREATE VIEW `v_statements` AS
SELECT
  s.bank, s.account_id, s.statement_id, s.type,
  s.start_date_time, s.end_date_time, s.creation_date_time, s.reference,
  s.file_path, s.file_content_type, s.file_sha256, s.file_bytes,
  date(s.start_date_time, (SELECT o.offset_minutes FROM nz_offsets o WHERE o.utc_from <= s.start_date_time ORDER BY o.utc_from DESC LIMIT 1) || ' minutes') AS start_date,
  date(s.end_date_time, (SELECT o.offset_minutes FROM nz_offsets o WHERE o.utc_from <= s.end_date_time ORDER BY o.utc_from DESC LIMIT 1) || ' minutes') AS end_date
FROM statements s;
--> statement-breakpoint
DROP VIEW IF EXISTS `v_payments`;
--> statement-breakpoint
CREATE VIEW `v_payments` AS
SELECT
  p.payment_id, p.consent_id, p.status, CAST(p.amount AS REAL) AS amount, p.currency,
  p.particulars, p.code, p.reference, p.created_at, p.status_updated_at,
  p.amount AS amount_text, p.amount_minor, p.created_nz_date AS created_date
FROM payments p;
