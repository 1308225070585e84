-- Each category decision's version (docs/categories.md "When rows are decided"): the
-- transaction's `updated_at` as the decision read it, so that the sync decides a row again only
-- when the row changed since (its `updated_at` differs), not by comparing the sync's clock with the
-- store's. A column added with a default: every row kept; a decision stored before this migration
-- has '' (no row's `updated_at`), so the next sync decides it again once and stores its version.
-- SQLite twin: src/store/sqlite/migrations/0017_category_row_version.sql.
ALTER TABLE "transaction_categories" ADD COLUMN "row_updated_at" text DEFAULT '' NOT NULL;
