CREATE TABLE `continuity_findings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`bank` text NOT NULL,
	`account_id` text NOT NULL,
	`kind` text NOT NULL,
	`from_date_time` text NOT NULL,
	`to_date_time` text NOT NULL,
	`from_date` text NOT NULL,
	`to_date` text NOT NULL,
	`amount` text NOT NULL,
	`amount_minor` integer,
	`currency` text NOT NULL,
	`cause` text NOT NULL,
	`transaction_id` text,
	`detail` text NOT NULL,
	`run_id` text,
	`checked_at` text NOT NULL,
	FOREIGN KEY (`run_id`) REFERENCES `runs`(`run_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `continuity_account` ON `continuity_findings` (`bank`,`account_id`);--> statement-breakpoint
-- v_continuity (docs/data-model.md "v_continuity"): the breaks the latest check found per account.
-- Public: change only by adding columns at the end. As in every view, `amount` is a number and the
-- exact signed decimal text is `amount_text`.
CREATE VIEW `v_continuity` AS
SELECT
  f.bank, f.account_id, f.kind, f.from_date, f.to_date, CAST(f.amount AS REAL) AS amount, f.amount_minor,
  f.currency, f.cause, f.transaction_id, f.detail, f.from_date_time, f.to_date_time, f.run_id, f.checked_at,
  f.amount AS amount_text
FROM continuity_findings f;
