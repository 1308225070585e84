-- When the latest fetch that returned a balance ran (docs/data-model.md "v_balances"): a balance
-- fetched again was left as it was (ON CONFLICT DO NOTHING on balances_identity), so when the bank
-- restated a balance and then restated it back to its first amount (A, B, A) nothing recorded the
-- third fetch, and B, fetched after A's only row, was read as the bank's latest word by the check,
-- the report's anchor and the OFX LEDGERBAL. commitBalances now moves last_seen_at of a balance
-- fetched again; fetched_at keeps the fetch that first returned it (the check's late rows read it).
-- A column added with a default: every row kept; each row stored before this migration is seen
-- last by the fetch that first returned it (its fetched_at), what the store knew of it.
-- PostgreSQL twin: src/store/pg/migrations/0019_balance_last_seen.sql.
ALTER TABLE `balances` ADD `last_seen_at` text DEFAULT '' NOT NULL;
--> statement-breakpoint
UPDATE `balances` SET `last_seen_at` = `fetched_at`;
