-- Who runs a scheduled job's run (SQLite twin, with the reasons:
-- src/store/sqlite/migrations/0021_job_run_holder.sql). Columns added, nullable: every row kept. Its
-- text compares byte by byte, as every table's text (0016_text_collation).
ALTER TABLE "job_runs" ADD COLUMN "holder_host" text COLLATE "C";--> statement-breakpoint
ALTER TABLE "job_runs" ADD COLUMN "holder_pid" integer;
