ALTER TABLE `bank_window` ADD `max_accepted_rows` integer;--> statement-breakpoint
ALTER TABLE `bank_window` ADD `min_refused_rows` integer;--> statement-breakpoint
ALTER TABLE `sync_state` ADD `rows_per_day` real;