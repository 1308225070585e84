-- The public views for PostgreSQL: the same names, columns and order as the SQLite views
-- (src/store/migrations/*_views.sql, column lists in src/store/views.ts; docs/data-model.md), in
-- their version 0.2 form from the start (no PostgreSQL database had the 0.1 views): `amount` and
-- `balance_after` are exact `numeric` computed from the text the tables keep, the bank's digits
-- are in `amount_text` / `balance_after_text`, and the NZ dates come from the time zone database.
-- Column names, order and meaning are a contract for accounting tools: change them only by adding
-- columns at the end, in both dialects.
--
-- Every text column compares and sorts byte by byte (COLLATE "C"), as SQLite does: ORDER BY in
-- exports, the key order of listings and upper() then give the same bytes on both engines,
-- whatever locale the user's cluster was created with. Done here, before any view depends on the
-- columns.
DO $$
DECLARE col record;
BEGIN
  FOR col IN
    SELECT c.table_name, c.column_name
    FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.data_type = 'text'
      AND c.table_name NOT LIKE '\_\_%'
  LOOP
    EXECUTE format('ALTER TABLE %I ALTER COLUMN %I TYPE text COLLATE "C"', col.table_name, col.column_name);
  END LOOP;
END $$;
--> statement-breakpoint
-- NZ "today" for v_consents: PostgreSQL has the time zone database, so no offsets table.
CREATE VIEW "nz_today" AS
SELECT to_char((now() AT TIME ZONE 'Pacific/Auckland')::date, 'YYYY-MM-DD') AS today;
--> statement-breakpoint
CREATE VIEW "v_transactions" AS
SELECT
  t.consent_id, t.bank, t.account_id, t.transaction_id, t.status,
  t.booking_date_time, t.booking_date, t.value_date_time,
  t.amount::numeric AS amount, t.amount_minor, t.currency, t.credit_debit_indicator,
  t.description, t.merchant_name, t.merchant_category_code,
  t.creditor_name, t.debtor_name,
  t.creditor_particulars, t.creditor_code, t.creditor_reference,
  t.debtor_particulars, t.debtor_code, t.debtor_reference,
  t.bank_transaction_code, t.bank_transaction_subcode, t.proprietary_code,
  t.balance_after::numeric AS balance_after, t.counterparty_account,
  t.first_seen_at, t.last_seen_at,
  t.amount AS amount_text,
  t.balance_after AS balance_after_text,
  to_char((t.value_date_time::timestamptz AT TIME ZONE 'Pacific/Auckland')::date, 'YYYY-MM-DD') AS value_date
FROM transactions t
WHERE t.removed_at IS NULL;
--> statement-breakpoint
CREATE VIEW "v_accounts" AS
SELECT
  a.bank, a.account_id, a.consent_id, a.currency, a.nickname, a.description,
  a.account_type, a.account_subtype, a.scheme_name, a.identification, a.account_name,
  a.first_seen_at, a.updated_at
FROM accounts a;
--> statement-breakpoint
CREATE VIEW "v_balances" AS
SELECT
  b.bank, b.account_id, b.type, b.amount::numeric AS amount, b.amount_minor, b.currency,
  b.credit_debit_indicator, b.date_time, b.fetched_at,
  b.amount AS amount_text,
  to_char((b.date_time::timestamptz AT TIME ZONE 'Pacific/Auckland')::date, 'YYYY-MM-DD') AS date
FROM balances b;
--> statement-breakpoint
CREATE VIEW "v_statements" AS
SELECT
  s.bank, s.account_id, s.statement_id, s.type,
  s.start_date_time, s.end_date_time, s.creation_date_time, s.reference,
  s.file_path, s.file_content_type, s.file_sha256, s.file_bytes,
  to_char((s.start_date_time::timestamptz AT TIME ZONE 'Pacific/Auckland')::date, 'YYYY-MM-DD') AS start_date,
  to_char((s.end_date_time::timestamptz AT TIME ZONE 'Pacific/Auckland')::date, 'YYYY-MM-DD') AS end_date
FROM statements s;
--> statement-breakpoint
CREATE VIEW "v_parties" AS
SELECT
  p.bank, p.consent_id, p.account_id, p.party_id, p.party_type,
  p.name, p.email, p.phone, p.mobile, p.address
FROM parties p;
--> statement-breakpoint
-- days_to_expiry: whole NZ days from NZ today to the expiration's NZ date (date - date is an integer).
CREATE VIEW "v_consents" AS
SELECT
  c.consent_id, c.bank, c.status, c.permissions,
  c.start_date_time, c.end_date_time, c.expiration_date_time,
  CASE
    WHEN c.expiration_nz_date IS NULL THEN NULL
    ELSE c.expiration_nz_date::date - (SELECT today FROM nz_today)::date
  END AS days_to_expiry,
  c.last_synced_at, c.last_outcome
FROM consents c;
--> statement-breakpoint
CREATE VIEW "v_runs" AS
SELECT
  r.run_id, r.started_at, r.finished_at, r.outcome, r.consents, r.requests,
  r.rows_written, r.failed_units, r.error_summary
FROM runs r;
--> statement-breakpoint
-- Payments views (docs/payments-contract.md "Reconciliation"). Public: v_payments,
-- v_payment_matches. Internal: payment_match_candidates (the rule is the SQLite one, word for word).
CREATE VIEW "v_payments" AS
SELECT
  p.payment_id, p.consent_id, p.status, p.amount::numeric AS amount, p.currency,
  p.particulars, p.code, p.reference, p.created_at, p.status_updated_at,
  p.amount AS amount_text, p.amount_minor, p.created_nz_date AS created_date
FROM payments p;
--> statement-breakpoint
CREATE VIEW "payment_match_candidates" AS
SELECT p.payment_id, t.bank, t.account_id, t.transaction_id
FROM payments p
JOIN transactions t
  ON t.removed_at IS NULL
 AND t.status = 'Booked'
 AND t.credit_debit_indicator = 'Credit'
 AND t.currency = p.currency
 AND t.amount_minor = p.amount_minor
 AND upper(trim(coalesce(t.creditor_particulars, ''))) = upper(trim(coalesce(p.particulars, '')))
 AND upper(trim(coalesce(t.creditor_code, ''))) = upper(trim(coalesce(p.code, '')))
 AND upper(trim(coalesce(t.creditor_reference, ''))) = upper(trim(coalesce(p.reference, '')))
 AND t.booking_date >= p.created_nz_date
 AND t.booking_date <= to_char(p.status_updated_nz_date::date + 3, 'YYYY-MM-DD')
WHERE p.status = 'AcceptedSettlementCompleted';
--> statement-breakpoint
CREATE VIEW "v_payment_matches" AS
SELECT payment_id, bank, account_id, transaction_id, 'amount_pcr_date'::text AS match_rule
FROM (
  SELECT c.payment_id, c.bank, c.account_id, c.transaction_id,
         count(*) OVER (PARTITION BY c.payment_id) AS per_payment,
         count(*) OVER (PARTITION BY c.bank, c.account_id, c.transaction_id) AS per_transaction
  FROM payment_match_candidates c
) AS m
WHERE per_payment = 1 AND per_transaction = 1;
