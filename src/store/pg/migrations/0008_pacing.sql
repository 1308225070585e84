CREATE TABLE "pacing" (
	"api" text NOT NULL,
	"client_id" text NOT NULL,
	"rate" double precision NOT NULL,
	"ceiling" double precision,
	"updated_at" text NOT NULL,
	CONSTRAINT "pacing_api_client_id_pk" PRIMARY KEY("api","client_id")
);
