-- The fingerprint of the last entry a prune took (SQLite twin, with the reasons:
-- src/store/sqlite/migrations/0024_change_log_horizon_fingerprint.sql). A nullable column added:
-- every row kept. It compares byte by byte, as every table's text (0016_text_collation).
ALTER TABLE "change_log_horizon" ADD COLUMN "fingerprint" text COLLATE "C";
