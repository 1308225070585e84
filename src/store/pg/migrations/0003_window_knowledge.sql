ALTER TABLE "bank_window" ADD COLUMN "max_accepted_rows" integer;--> statement-breakpoint
ALTER TABLE "bank_window" ADD COLUMN "min_refused_rows" integer;--> statement-breakpoint
ALTER TABLE "sync_state" ADD COLUMN "rows_per_day" double precision;