-- Which change log this is (docs/changes.md "Cursors"): a cursor names its log, so a cursor of
-- another database, a copy or a restored backup is refused instead of served entries that are not
-- the ones after it. A new table of one row: every other row stays as it was. The log's id is
-- random; `legacy` is 1 when the log was already used (entries, or a prune), so the cursors given
-- before this migration, which name no log, stay valid here, and only here. `db_oid`: the database it
-- was made in (a clone of it is another database). Its text columns compare byte by byte, as every
-- table's (0016_text_collation). SQLite twin:
-- src/store/sqlite/migrations/0018_change_log_identity.sql.
CREATE TABLE "change_log_identity" (
	"id" integer PRIMARY KEY NOT NULL,
	"log_id" text COLLATE "C" NOT NULL,
	"legacy" integer DEFAULT 0 NOT NULL,
	"db_oid" bigint,
	"forked_from" text COLLATE "C",
	"forked_xid" bigint DEFAULT 0 NOT NULL,
	"forked_seq" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO "change_log_identity" ("id", "log_id", "legacy", "db_oid")
SELECT 1, replace(gen_random_uuid()::text, '-', ''),
  (EXISTS (SELECT 1 FROM "change_log") OR EXISTS (SELECT 1 FROM "change_log_horizon"))::int,
  (SELECT oid::bigint FROM pg_database WHERE datname = current_database());
