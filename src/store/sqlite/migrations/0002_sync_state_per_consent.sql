PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_sync_state` (
	`bank` text NOT NULL,
	`account_id` text NOT NULL,
	`consent_id` text NOT NULL,
	`resource` text NOT NULL,
	`watermark` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`bank`, `account_id`, `consent_id`, `resource`)
);
--> statement-breakpoint
-- Watermarks were per account; they cannot be given to a consent, so they are dropped and the
-- next run backfills each (consent, account) once, without duplicates (rows are keyed).
DROP TABLE `sync_state`;--> statement-breakpoint
ALTER TABLE `__new_sync_state` RENAME TO `sync_state`;--> statement-breakpoint
PRAGMA foreign_keys=ON;