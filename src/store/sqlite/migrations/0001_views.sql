-- The public views (docs/data-model.md "Views"). Column names, order and
-- meaning are a contract for accounting tools: change them only by adding columns at the end.
-- NZ "today" for v_consents: SQLite has no time zones, and date('now', '+13 hours') is wrong for
-- half the year, so the offset in force now is looked up in nz_offsets (Pacific/Auckland
-- transitions written by the app from luxon's zone data).
CREATE VIEW `nz_today` AS
SELECT date('now', o.offset_minutes || ' minutes') AS today
FROM nz_offsets o
WHERE o.utc_from <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
ORDER BY o.utc_from DESC
LIMIT 1;
--> statement-breakpoint
CREATE VIEW `v_transactions` AS
SELECT
  t.consent_id, t.bank, t.account_id, t.transaction_id, t.status,
  t.booking_date_time, t.booking_date, t.value_date_time,
  t.amount, t.amount_minor, t.currency, t.credit_debit_indicator,
  t.description, t.merchant_name, t.merchant_category_code,
  t.creditor_name, t.debtor_name,
  t.creditor_particulars, t.creditor_code, t.creditor_reference,
  t.debtor_particulars, t.debtor_code, t.debtor_reference,
  t.bank_transaction_code, t.bank_transaction_subcode, t.proprietary_code,
  t.balance_after, t.counterparty_account,
  t.first_seen_at, t.last_seen_at
FROM transactions t
WHERE t.removed_at IS NULL;
--> statement-breakpoint
CREATE VIEW `v_accounts` AS
SELECT
  a.bank, a.account_id, a.consent_id, a.currency, a.nickname, a.description,
  a.account_type, a.account_subtype, a.scheme_name, a.identification, a.account_name,
  a.first_seen_at, a.updated_at
FROM accounts a;
--> statement-breakpoint
CREATE VIEW `v_balances` AS
SELECT
  b.bank, b.account_id, b.type, b.amount, b.amount_minor, b.currency,
  b.credit_debit_indicator, b.date_time, b.fetched_at
FROM balances b;
--> statement-breakpoint
CREATE VIEW `v_statements` AS
SELECT
  s.bank, s.account_id, s.statement_id, s.type,
  s.start_date_time, s.end_date_time, s.creation_date_time, s.reference,
  s.file_path, s.file_content_type, s.file_sha256, s.file_bytes
FROM statements s;
--> statement-breakpoint
CREATE VIEW `v_parties` AS
SELECT
  p.bank, p.consent_id, p.account_id, p.party_id, p.party_type,
  p.name, p.email, p.phone, p.mobile, p.address
FROM parties p;
--> statement-breakpoint
CREATE VIEW `v_consents` AS
SELECT
  c.consent_id, c.bank, c.status, c.permissions,
  c.start_date_time, c.end_date_time, c.expiration_date_time,
  CASE
    WHEN c.expiration_nz_date IS NULL THEN NULL
    ELSE CAST(julianday(c.expiration_nz_date) - julianday((SELECT today FROM nz_today)) AS INTEGER)
  END AS days_to_expiry,
  c.last_synced_at, c.last_outcome
FROM consents c;
--> statement-breakpoint
CREATE VIEW `v_runs` AS
SELECT
  r.run_id, r.started_at, r.finished_at, r.outcome, r.consents, r.requests,
  r.rows_written, r.failed_units, r.error_summary
FROM runs r;
