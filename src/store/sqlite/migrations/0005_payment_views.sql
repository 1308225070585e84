-- Payments views (docs/data-model.md "Views"; docs/payments-contract.md §8).
-- Public: v_payments, v_payment_matches (change only by adding columns at the end).
-- Internal: payment_match_candidates (every settled payment x every booked credit that carries it).
CREATE VIEW `v_payments` AS
SELECT
  p.payment_id, p.consent_id, p.status, p.amount, p.currency,
  p.particulars, p.code, p.reference, p.created_at, p.status_updated_at
FROM payments p;
--> statement-breakpoint
-- A credit carries a payment when: booked, same currency and amount in minor units (so "25" and
-- "25.00" agree), the same particulars, code and reference on the payee's side (CreditorReference;
-- trimmed, case-insensitive, absent = empty), booked from the NZ date the payment was created to 3
-- NZ days after it settled.
CREATE VIEW `payment_match_candidates` AS
SELECT p.payment_id, t.bank, t.account_id, t.transaction_id
FROM payments p
JOIN transactions t
  ON t.removed_at IS NULL
 AND t.status = 'Booked'
 AND t.credit_debit_indicator = 'Credit'
 AND t.currency = p.currency
 AND t.amount_minor = p.amount_minor
 AND upper(trim(coalesce(t.creditor_particulars, ''))) = upper(trim(coalesce(p.particulars, '')))
 AND upper(trim(coalesce(t.creditor_code, ''))) = upper(trim(coalesce(p.code, '')))
 AND upper(trim(coalesce(t.creditor_reference, ''))) = upper(trim(coalesce(p.reference, '')))
 AND t.booking_date >= p.created_nz_date
 AND t.booking_date <= date(p.status_updated_nz_date, '+3 days')
WHERE p.status = 'AcceptedSettlementCompleted';
--> statement-breakpoint
-- A match only when it is one-to-one: the payment has one candidate and that credit carries no
-- other payment. Everything else is unmatched or ambiguous (listReconciliationIssues).
CREATE VIEW `v_payment_matches` AS
SELECT payment_id, bank, account_id, transaction_id, 'amount_pcr_date' AS match_rule
FROM (
  SELECT c.payment_id, c.bank, c.account_id, c.transaction_id,
         count(*) OVER (PARTITION BY c.payment_id) AS per_payment,
         count(*) OVER (PARTITION BY c.bank, c.account_id, c.transaction_id) AS per_transaction
  FROM payment_match_candidates c
)
WHERE per_payment = 1 AND per_transaction = 1;
