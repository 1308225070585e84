-- The change log's horizon records the fingerprint of the last entry a prune took (docs/changes.md
-- "Cursors"): a consumer starting where the log holds no entry (a prune emptied it) gets a cursor
-- with that fingerprint, and a log that forked after it (a copy put back) is told apart. A nullable
-- column added: every row kept; a horizon written before this migration has none (its cursors are
-- judged as before).
-- PostgreSQL twin: src/store/pg/migrations/0023_change_log_horizon_fingerprint.sql.
ALTER TABLE `change_log_horizon` ADD `fingerprint` text;
