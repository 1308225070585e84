-- Categories and payees (docs/categories.md): a new table, transaction_categories, one decision
-- per transaction (its key; no foreign key), and v_transactions re-created with four columns at
-- the end (category, payee, category_source, category_rule) from a LEFT JOIN on that key, so a
-- row without a decision reads 'uncategorised' / 'none'. Only a table is added and a view
-- replaced: every row stays as it was. Twin: src/store/sqlite/migrations/0013_categories.sql.
CREATE TABLE "transaction_categories" (
	"bank" text NOT NULL,
	"account_id" text NOT NULL,
	"transaction_id" text NOT NULL,
	"category" text NOT NULL,
	"payee" text,
	"category_source" text NOT NULL,
	"category_rule" text,
	"decided_at" text NOT NULL,
	CONSTRAINT "transaction_categories_bank_account_id_transaction_id_pk" PRIMARY KEY("bank","account_id","transaction_id")
);--> statement-breakpoint
DROP VIEW IF EXISTS "v_transactions";--> statement-breakpoint
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
  to_char((t.value_date_time::timestamptz AT TIME ZONE 'Pacific/Auckland')::date, 'YYYY-MM-DD') AS value_date,
  COALESCE(c.category, 'uncategorised') AS category, c.payee, COALESCE(c.category_source, 'none') AS category_source,
  c.category_rule
FROM transactions t
LEFT JOIN transaction_categories c
  ON c.bank = t.bank AND c.account_id = t.account_id AND c.transaction_id = t.transaction_id
WHERE t.removed_at IS NULL;
