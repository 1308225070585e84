CREATE TABLE `transfer_links` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`status` text NOT NULL,
	`debit_bank` text NOT NULL,
	`debit_account_id` text NOT NULL,
	`debit_transaction_id` text NOT NULL,
	`credit_bank` text NOT NULL,
	`credit_account_id` text NOT NULL,
	`credit_transaction_id` text NOT NULL,
	`currency` text NOT NULL,
	`amount_minor` integer NOT NULL,
	`days_apart` integer NOT NULL,
	`same_consent` integer NOT NULL,
	`same_party` integer NOT NULL,
	`owner_group` text,
	`counterparty_sides` integer NOT NULL,
	`reference_agrees` integer NOT NULL,
	`score` integer NOT NULL,
	`linked_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `transfer_links_debit` ON `transfer_links` (`debit_bank`,`debit_account_id`,`debit_transaction_id`,`status`);--> statement-breakpoint
CREATE INDEX `transfer_links_credit` ON `transfer_links` (`credit_bank`,`credit_account_id`,`credit_transaction_id`,`status`);--> statement-breakpoint
-- v_transfers (docs/data-model.md "v_transfers"; docs/transfers.md): the own-account transfers the
-- latest matching linked, both sides and the evidence. Public: change only by adding columns at
-- the end. As in every view, amounts are numbers and the exact text is `*_amount_text`.
CREATE VIEW `v_transfers` AS
SELECT
  l.debit_bank, l.debit_account_id, l.debit_transaction_id, t_d.booking_date AS debit_booking_date,
  CAST(t_d.amount AS REAL) AS debit_amount,
  l.credit_bank, l.credit_account_id, l.credit_transaction_id, t_c.booking_date AS credit_booking_date,
  CAST(t_c.amount AS REAL) AS credit_amount,
  l.currency, l.amount_minor, l.days_apart, l.same_consent, l.same_party, l.owner_group, l.counterparty_sides,
  l.reference_agrees, l.score, l.linked_at, t_d.amount AS debit_amount_text, t_c.amount AS credit_amount_text
FROM transfer_links l
JOIN transactions t_d ON t_d.bank = l.debit_bank AND t_d.account_id = l.debit_account_id AND t_d.transaction_id = l.debit_transaction_id
JOIN transactions t_c ON t_c.bank = l.credit_bank AND t_c.account_id = l.credit_account_id AND t_c.transaction_id = l.credit_transaction_id
WHERE l.status = 'linked' AND t_d.removed_at IS NULL AND t_c.removed_at IS NULL;--> statement-breakpoint
-- v_transfer_ambiguities (docs/data-model.md "v_transfer_ambiguities"): candidate pairs left
-- unchosen because another candidate of a side is as good; the columns of v_transfers.
CREATE VIEW `v_transfer_ambiguities` AS
SELECT
  l.debit_bank, l.debit_account_id, l.debit_transaction_id, t_d.booking_date AS debit_booking_date,
  CAST(t_d.amount AS REAL) AS debit_amount,
  l.credit_bank, l.credit_account_id, l.credit_transaction_id, t_c.booking_date AS credit_booking_date,
  CAST(t_c.amount AS REAL) AS credit_amount,
  l.currency, l.amount_minor, l.days_apart, l.same_consent, l.same_party, l.owner_group, l.counterparty_sides,
  l.reference_agrees, l.score, l.linked_at, t_d.amount AS debit_amount_text, t_c.amount AS credit_amount_text
FROM transfer_links l
JOIN transactions t_d ON t_d.bank = l.debit_bank AND t_d.account_id = l.debit_account_id AND t_d.transaction_id = l.debit_transaction_id
JOIN transactions t_c ON t_c.bank = l.credit_bank AND t_c.account_id = l.credit_account_id AND t_c.transaction_id = l.credit_transaction_id
WHERE l.status = 'ambiguous' AND t_d.removed_at IS NULL AND t_c.removed_at IS NULL;
