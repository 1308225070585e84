CREATE TABLE `accounts` (
	`bank` text NOT NULL,
	`account_id` text NOT NULL,
	`consent_id` text NOT NULL,
	`currency` text NOT NULL,
	`nickname` text,
	`description` text,
	`account_type` text,
	`account_subtype` text,
	`scheme_name` text,
	`identification` text,
	`account_name` text,
	`secondary_identification` text,
	`servicer_identification` text,
	`raw_json` text NOT NULL,
	`first_seen_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`bank`, `account_id`),
	FOREIGN KEY (`consent_id`) REFERENCES `consents`(`consent_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `balances` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`bank` text NOT NULL,
	`account_id` text NOT NULL,
	`consent_id` text NOT NULL,
	`type` text NOT NULL,
	`amount` text NOT NULL,
	`amount_minor` integer,
	`currency` text NOT NULL,
	`credit_debit_indicator` text NOT NULL,
	`date_time` text NOT NULL,
	`raw_json` text NOT NULL,
	`fetched_at` text NOT NULL,
	FOREIGN KEY (`consent_id`) REFERENCES `consents`(`consent_id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`bank`,`account_id`) REFERENCES `accounts`(`bank`,`account_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `balances_identity` ON `balances` (`bank`,`account_id`,`type`,`date_time`,`amount`,`credit_debit_indicator`);--> statement-breakpoint
CREATE TABLE `bank_meta` (
	`bank` text PRIMARY KEY NOT NULL,
	`max_history_days` integer,
	`raw_json` text NOT NULL,
	`fetched_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `bank_window` (
	`bank` text PRIMARY KEY NOT NULL,
	`window_days` integer NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `consents` (
	`consent_id` text PRIMARY KEY NOT NULL,
	`bank` text,
	`status` text,
	`permissions` text,
	`creation_date_time` text,
	`status_update_date_time` text,
	`start_date_time` text,
	`end_date_time` text,
	`expiration_date_time` text,
	`expiration_nz_date` text,
	`raw_json` text,
	`registered_at` text NOT NULL,
	`ended_at` text,
	`ended_reason` text,
	`status_fetched_at` text,
	`last_synced_at` text,
	`last_outcome` text
);
--> statement-breakpoint
CREATE TABLE `lease` (
	`id` integer PRIMARY KEY NOT NULL,
	`holder_pid` integer NOT NULL,
	`holder_host` text NOT NULL,
	`acquired_at` text NOT NULL,
	`expires_at` text NOT NULL,
	CONSTRAINT "lease_single_row" CHECK("lease"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE `nz_offsets` (
	`utc_from` text PRIMARY KEY NOT NULL,
	`offset_minutes` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `parties` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`bank` text NOT NULL,
	`consent_id` text NOT NULL,
	`account_id` text,
	`party_id` text NOT NULL,
	`party_number` text,
	`party_type` text,
	`name` text,
	`email` text,
	`phone` text,
	`mobile` text,
	`address` text,
	`raw_json` text NOT NULL,
	`first_seen_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`consent_id`) REFERENCES `consents`(`consent_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `parties_customer` ON `parties` (`bank`,`consent_id`) WHERE account_id IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `parties_account` ON `parties` (`bank`,`account_id`) WHERE account_id IS NOT NULL;--> statement-breakpoint
CREATE TABLE `rejects` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`resource` text NOT NULL,
	`bank` text,
	`consent_id` text,
	`account_id` text,
	`reason` text NOT NULL,
	`raw_payload` text NOT NULL,
	`run_id` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`run_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `rejects_run` ON `rejects` (`run_id`);--> statement-breakpoint
CREATE TABLE `runs` (
	`run_id` text PRIMARY KEY NOT NULL,
	`started_at` text NOT NULL,
	`finished_at` text,
	`outcome` text,
	`consents` integer DEFAULT 0 NOT NULL,
	`requests` integer DEFAULT 0 NOT NULL,
	`rows_written` integer DEFAULT 0 NOT NULL,
	`failed_units` integer DEFAULT 0 NOT NULL,
	`error_summary` text
);
--> statement-breakpoint
CREATE INDEX `runs_started_at` ON `runs` (`started_at`);--> statement-breakpoint
CREATE TABLE `statements` (
	`bank` text NOT NULL,
	`account_id` text NOT NULL,
	`statement_id` text NOT NULL,
	`consent_id` text NOT NULL,
	`type` text NOT NULL,
	`start_date_time` text NOT NULL,
	`end_date_time` text NOT NULL,
	`creation_date_time` text NOT NULL,
	`reference` text,
	`raw_json` text NOT NULL,
	`file_path` text,
	`file_content_type` text,
	`file_sha256` text,
	`file_bytes` integer,
	`file_fetched_at` text,
	`first_seen_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`bank`, `account_id`, `statement_id`),
	FOREIGN KEY (`consent_id`) REFERENCES `consents`(`consent_id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`bank`,`account_id`) REFERENCES `accounts`(`bank`,`account_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `sync_state` (
	`bank` text NOT NULL,
	`account_id` text NOT NULL,
	`resource` text NOT NULL,
	`watermark` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`bank`, `account_id`, `resource`)
);
--> statement-breakpoint
CREATE TABLE `transactions` (
	`bank` text NOT NULL,
	`account_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`consent_id` text NOT NULL,
	`status` text NOT NULL,
	`booking_date_time` text NOT NULL,
	`booking_date` text NOT NULL,
	`value_date_time` text,
	`amount` text NOT NULL,
	`amount_minor` integer,
	`currency` text NOT NULL,
	`credit_debit_indicator` text NOT NULL,
	`description` text,
	`merchant_name` text,
	`merchant_category_code` text,
	`creditor_name` text,
	`debtor_name` text,
	`creditor_particulars` text,
	`creditor_code` text,
	`creditor_reference` text,
	`debtor_particulars` text,
	`debtor_code` text,
	`debtor_reference` text,
	`bank_transaction_code` text,
	`bank_transaction_subcode` text,
	`proprietary_code` text,
	`balance_after` text,
	`counterparty_account` text,
	`raw_json` text NOT NULL,
	`first_seen_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`removed_at` text,
	PRIMARY KEY(`bank`, `account_id`, `transaction_id`),
	FOREIGN KEY (`consent_id`) REFERENCES `consents`(`consent_id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`bank`,`account_id`) REFERENCES `accounts`(`bank`,`account_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `transactions_open_pending` ON `transactions` (`bank`,`account_id`,`status`,`removed_at`,`booking_date_time`);--> statement-breakpoint
CREATE INDEX `transactions_booking_date` ON `transactions` (`booking_date`);