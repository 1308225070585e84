-- The key that took a payment request over (SQLite twin, with the reasons:
-- src/store/sqlite/migrations/0019_payment_attempt_successor.sql). A new nullable column: every row
-- stays as it was. It compares byte by byte, as every table's text (0016_text_collation).
ALTER TABLE "payment_attempts" ADD COLUMN "superseded_by" text COLLATE "C";
