CREATE TABLE "rate_budget" (
	"key" text PRIMARY KEY NOT NULL,
	"theoretical_arrival_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "run_consents" (
	"run_id" text NOT NULL,
	"consent_id" text NOT NULL,
	"state" text NOT NULL,
	"worker_id" text,
	"lease_expires_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"outcome" text,
	"leased_at" text,
	"finished_at" text,
	CONSTRAINT "run_consents_run_id_consent_id_pk" PRIMARY KEY("run_id","consent_id")
);
--> statement-breakpoint
CREATE TABLE "run_workers" (
	"run_id" text NOT NULL,
	"worker_id" text NOT NULL,
	"host" text NOT NULL,
	"pid" integer NOT NULL,
	"joined_at" text NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"left_at" text,
	"consents" integer DEFAULT 0 NOT NULL,
	"requests" integer DEFAULT 0 NOT NULL,
	"rows_written" integer DEFAULT 0 NOT NULL,
	"failed_units" integer DEFAULT 0 NOT NULL,
	"outcome" text,
	"error_summary" text,
	CONSTRAINT "run_workers_run_id_worker_id_pk" PRIMARY KEY("run_id","worker_id")
);
--> statement-breakpoint
CREATE TABLE "statement_files" (
	"file_path" text PRIMARY KEY NOT NULL,
	"content_type" text NOT NULL,
	"sha256" text NOT NULL,
	"bytes" bigint NOT NULL,
	"content" "bytea" NOT NULL,
	"stored_at" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "run_consents" ADD CONSTRAINT "run_consents_run_id_runs_run_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("run_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "run_workers" ADD CONSTRAINT "run_workers_run_id_runs_run_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("run_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "run_consents_queued" ON "run_consents" USING btree ("run_id","consent_id") WHERE state = 'queued';--> statement-breakpoint
CREATE INDEX "run_consents_expiring" ON "run_consents" USING btree ("run_id","lease_expires_at") WHERE state = 'leased';--> statement-breakpoint
-- Text compares byte by byte, as in every table (0001_views.sql).
DO $$
DECLARE col record;
BEGIN
  FOR col IN
    SELECT c.table_name, c.column_name FROM information_schema.columns c
    WHERE c.table_schema = current_schema() AND c.data_type = 'text'
      AND c.table_name IN ('rate_budget', 'run_consents', 'run_workers', 'statement_files')
  LOOP
    EXECUTE format('ALTER TABLE %I ALTER COLUMN %I TYPE text COLLATE "C"', col.table_name, col.column_name);
  END LOOP;
END $$;
