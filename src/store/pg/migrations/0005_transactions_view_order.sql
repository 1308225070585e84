-- An index in v_transactions' order (bank, account_id, booking_date_time, transaction_id over the
-- rows not removed): an export reads its rows in that order without sorting them first
-- (docs/benchmarks.md "Export"). Only an index is added: every row stays as it was. SQLite twin: src/store/migrations/0009.
CREATE INDEX "transactions_view_order" ON "transactions" USING btree ("bank" NULLS FIRST,"account_id" NULLS FIRST,"booking_date_time" NULLS FIRST,"transaction_id" NULLS FIRST) WHERE removed_at IS NULL;
