-- The read side's index (bankdata check, bankdata report): an account's rows by status, removed or
-- not, in booking order, with every column their queries read, so the running-balance walk (a
-- window over the rows), the sums between balances and the daily totals read the index alone, in
-- order, never the table (docs/continuity.md "Set-based"). It starts with the columns of
-- transactions_open_pending (the sync's look-up of open pending rows), which it replaces. Only
-- indexes change: every row stays as it was. PostgreSQL twin: src/store/pg/migrations/0009.
DROP INDEX IF EXISTS `transactions_open_pending`;--> statement-breakpoint
CREATE INDEX `transactions_account_rows` ON `transactions` (`bank`,`account_id`,`status`,`removed_at`,`booking_date_time`,`transaction_id`,`amount_minor`,`amount`,`balance_after`,`booking_date`,`first_seen_at`);
