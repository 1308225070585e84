-- v_balances with `last_seen_at` (docs/data-model.md "v_balances"): the bank may restate a balance
-- (another amount for one instant and type), and the check, the report and the OFX export read
-- the statement the latest fetch returned, by balances.last_seen_at (migration 0019); a query over
-- the view alone could not tell which that is. The column goes at the end: every earlier column
-- keeps its place. Only the view changes: every row stays as it was.
-- SQLite twin: src/store/sqlite/migrations/0022_balances_view_last_seen.sql.
DROP VIEW IF EXISTS "v_balances";--> statement-breakpoint
CREATE VIEW "v_balances" AS
SELECT
  b.bank, b.account_id, b.type, b.amount::numeric AS amount, b.amount_minor, b.currency,
  b.credit_debit_indicator, b.date_time, b.fetched_at,
  b.amount AS amount_text,
  to_char((b.date_time::timestamptz AT TIME ZONE 'Pacific/Auckland')::date, 'YYYY-MM-DD') AS date,
  b.last_seen_at
FROM balances b;
