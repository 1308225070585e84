CREATE TABLE `payment_attempts` (
	`idempotency_key` text PRIMARY KEY NOT NULL,
	`consent_id` text NOT NULL,
	`request_json` text NOT NULL,
	`state` text NOT NULL,
	`payment_id` text,
	`outcome_code` text,
	`outcome_message` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `payment_attempts_open` ON `payment_attempts` (`consent_id`,`state`);--> statement-breakpoint
CREATE TABLE `payment_status_history` (
	`payment_id` text NOT NULL,
	`status` text NOT NULL,
	`status_updated_at` text NOT NULL,
	`observed_at` text NOT NULL,
	PRIMARY KEY(`payment_id`, `status`),
	FOREIGN KEY (`payment_id`) REFERENCES `payments`(`payment_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `payments` (
	`payment_id` text PRIMARY KEY NOT NULL,
	`consent_id` text NOT NULL,
	`status` text NOT NULL,
	`amount` text NOT NULL,
	`amount_minor` integer,
	`currency` text NOT NULL,
	`particulars` text,
	`code` text,
	`reference` text,
	`created_at` text NOT NULL,
	`created_nz_date` text NOT NULL,
	`status_updated_at` text NOT NULL,
	`status_updated_nz_date` text NOT NULL,
	`idempotency_key` text,
	`raw_json` text NOT NULL,
	`first_seen_at` text NOT NULL,
	`last_checked_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `payments_status` ON `payments` (`status`);--> statement-breakpoint
CREATE INDEX `payments_consent` ON `payments` (`consent_id`);