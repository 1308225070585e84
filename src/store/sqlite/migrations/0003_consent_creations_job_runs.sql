CREATE TABLE `consent_creations` (
	`idempotency_key` text PRIMARY KEY NOT NULL,
	`intent_hash` text NOT NULL,
	`body_json` text NOT NULL,
	`body_sha256` text NOT NULL,
	`bank` text NOT NULL,
	`flow` text NOT NULL,
	`state` text NOT NULL,
	`consent_id` text,
	`response_json` text,
	`outcome` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `consent_creations_intent` ON `consent_creations` (`intent_hash`,`state`);--> statement-breakpoint
CREATE TABLE `job_runs` (
	`run_id` text PRIMARY KEY NOT NULL,
	`job` text NOT NULL,
	`scheduled_for` text NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`run_id`) ON UPDATE no action ON DELETE no action
);
