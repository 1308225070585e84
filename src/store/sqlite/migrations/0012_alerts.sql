CREATE TABLE `alert_outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` text NOT NULL,
	`type` text NOT NULL,
	`subject` text NOT NULL,
	`destination` text NOT NULL,
	`payload_json` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` text NOT NULL,
	`last_attempt_at` text,
	`last_status` integer,
	`last_error` text,
	`delivered_at` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alert_outbox_event` ON `alert_outbox` (`event_id`,`destination`);--> statement-breakpoint
CREATE INDEX `alert_outbox_due` ON `alert_outbox` (`state`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `alert_state` (
	`subject` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`state` text NOT NULL,
	`changed_at` text NOT NULL
);
