-- Which change log this is (docs/changes.md "Cursors"): a cursor names its log, so a cursor of
-- another database, a copy or a restored backup is refused instead of served entries that are not
-- the ones after it. A new table of one row: every other row stays as it was. The log's id is
-- random; `legacy` is 1 when the log was already used (entries, or a prune), so the cursors given
-- before this migration, which name no log, stay valid here, and only here.
-- PostgreSQL twin: src/store/pg/migrations/0017_change_log_identity.sql.
CREATE TABLE `change_log_identity` (
	`id` integer PRIMARY KEY NOT NULL,
	`log_id` text NOT NULL,
	`legacy` integer DEFAULT 0 NOT NULL,
	`db_oid` integer,
	`forked_from` text,
	`forked_xid` integer DEFAULT 0 NOT NULL,
	`forked_seq` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO `change_log_identity` (`id`, `log_id`, `legacy`)
SELECT 1, lower(hex(randomblob(16))),
  EXISTS (SELECT 1 FROM `change_log`) OR EXISTS (SELECT 1 FROM `change_log_horizon`);
