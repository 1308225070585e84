CREATE TABLE "statement_files" (
	"file_path" text PRIMARY KEY NOT NULL,
	"content_type" text NOT NULL,
	"sha256" text NOT NULL,
	"bytes" bigint NOT NULL,
	"content" "bytea" NOT NULL,
	"stored_at" text NOT NULL
);
--> statement-breakpoint
-- Text compares byte by byte, as in every table (0001_views.sql).
ALTER TABLE "statement_files" ALTER COLUMN "file_path" TYPE text COLLATE "C";
--> statement-breakpoint
ALTER TABLE "statement_files" ALTER COLUMN "content_type" TYPE text COLLATE "C";
--> statement-breakpoint
ALTER TABLE "statement_files" ALTER COLUMN "sha256" TYPE text COLLATE "C";
--> statement-breakpoint
ALTER TABLE "statement_files" ALTER COLUMN "stored_at" TYPE text COLLATE "C";
