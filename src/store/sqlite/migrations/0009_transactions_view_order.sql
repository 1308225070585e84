-- An index in v_transactions' order (bank, account_id, booking_date_time, transaction_id over the
-- rows not removed): an export reads its rows in that order without sorting them first
-- (docs/benchmarks.md "Export"). Only an index is added: every row stays as it was. PostgreSQL twin: src/store/pg/migrations/0005.
CREATE INDEX `transactions_view_order` ON `transactions` (`bank`,`account_id`,`booking_date_time`,`transaction_id`) WHERE removed_at IS NULL;
