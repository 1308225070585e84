CREATE TABLE `pacing` (
	`api` text NOT NULL,
	`client_id` text NOT NULL,
	`rate` real NOT NULL,
	`ceiling` real,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`api`, `client_id`)
);
