ALTER TABLE "rate_budget" ADD COLUMN "sent" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rate_budget" ADD COLUMN "refused" bigint DEFAULT 0 NOT NULL;