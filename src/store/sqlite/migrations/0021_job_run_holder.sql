-- Who runs a scheduled job's run (docs/consents-and-jobs.md "Jobs"): the expiry check and the meta
-- refresh take no lease, so `bankdata status` judged every one still running "interrupted" unless
-- a sync happened to hold the lease. Their tag now names the process (host, pid), judged as the
-- lease's holder is (src/store/lease.ts). Columns added, nullable: every row kept; the rows from
-- before, and the nightly sync's (tagged once its run is done), have none.
-- PostgreSQL twin: src/store/pg/migrations/0020_job_run_holder.sql.
ALTER TABLE `job_runs` ADD `holder_host` text;--> statement-breakpoint
ALTER TABLE `job_runs` ADD `holder_pid` integer;
