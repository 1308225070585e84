-- Duplicates the bank served (issue 36; docs/continuity.md "Duplicates the bank served",
-- docs/data-model.md "v_duplicates"): the table of suspicions the check writes, v_transactions
-- re-created with `suspected_duplicate` at its end, and v_duplicates. A new table and views only:
-- every row of every table stays as it was. PostgreSQL twin: src/store/pg/migrations/0013_duplicates.sql.
CREATE TABLE `duplicate_suspicions` (
	`bank` text NOT NULL,
	`account_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`twin_transaction_id` text NOT NULL,
	`evidence` text NOT NULL,
	`balance` text NOT NULL,
	`balance_date_time` text NOT NULL,
	`balance_date` text NOT NULL,
	`counted_balance` text NOT NULL,
	`amount_off` text NOT NULL,
	`amount_off_minor` integer,
	`currency` text NOT NULL,
	`detail` text NOT NULL,
	`suspected_at` text NOT NULL,
	`checked_at` text NOT NULL,
	`run_id` text,
	`cleared_at` text,
	PRIMARY KEY(`bank`, `account_id`, `transaction_id`)
);--> statement-breakpoint
DROP VIEW IF EXISTS `v_transactions`;--> statement-breakpoint
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
  date(t.value_date_time, (SELECT o.offset_minutes FROM nz_offsets o WHERE o.utc_from <= t.value_date_time ORDER BY o.utc_from DESC LIMIT 1) || ' minutes') AS value_date,
  COALESCE(c.category, 'uncategorised') AS category, c.payee, COALESCE(c.category_source, 'none') AS category_source,
  c.category_rule,
  CASE WHEN EXISTS (SELECT 1 FROM duplicate_suspicions s WHERE s.bank = t.bank AND s.account_id = t.account_id AND s.transaction_id = t.transaction_id AND s.cleared_at IS NULL) THEN 1 ELSE 0 END AS suspected_duplicate
FROM transactions t
LEFT JOIN transaction_categories c
  ON c.bank = t.bank AND c.account_id = t.account_id AND c.transaction_id = t.transaction_id
WHERE t.removed_at IS NULL;
--> statement-breakpoint
CREATE VIEW `v_duplicates` AS
SELECT
  s.bank, s.account_id, s.transaction_id, s.twin_transaction_id, s.evidence,
  s.balance_date, s.balance_date_time, CAST(s.balance AS REAL) AS balance, CAST(s.counted_balance AS REAL) AS counted_balance,
  CAST(s.amount_off AS REAL) AS amount_off, s.amount_off_minor, s.currency, s.detail,
  s.suspected_at, s.checked_at, s.run_id,
  t.booking_date_time, t.description, CAST(t.amount AS REAL) AS amount,
  s.balance AS balance_text, s.counted_balance AS counted_balance_text, s.amount_off AS amount_off_text, t.amount AS amount_text
FROM duplicate_suspicions s
LEFT JOIN transactions t ON t.bank = s.bank AND t.account_id = s.account_id AND t.transaction_id = s.transaction_id
WHERE s.cleared_at IS NULL;
