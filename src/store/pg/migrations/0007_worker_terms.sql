-- Each worker's own term (its last renewal plus its own sync.leaseTtlMs), so that others judge it by
-- its lease time, not theirs. Every row kept: an existing row's term is its last renewal plus the
-- default lease time (60 s, src/store/lease.ts DEFAULT_LEASE_TTL_MS).
ALTER TABLE "run_workers" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
UPDATE "run_workers" SET "expires_at" = "last_seen_at" + interval '60000 milliseconds';--> statement-breakpoint
ALTER TABLE "run_workers" ALTER COLUMN "expires_at" SET NOT NULL;