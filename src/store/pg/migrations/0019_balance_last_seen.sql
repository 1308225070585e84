-- When the latest fetch that returned a balance ran (SQLite twin, with the reasons:
-- src/store/sqlite/migrations/0020_balance_last_seen.sql). A column added with a default: every
-- row kept, each seen last by the fetch that first returned it (its fetched_at). It compares byte by
-- byte, as every table's text (0016_text_collation).
ALTER TABLE "balances" ADD COLUMN "last_seen_at" text COLLATE "C" DEFAULT '' NOT NULL;
--> statement-breakpoint
UPDATE "balances" SET "last_seen_at" = "fetched_at";
