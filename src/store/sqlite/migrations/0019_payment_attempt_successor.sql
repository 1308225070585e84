-- The key that took a payment request over when the bank would not pay it under an attempt's key
-- (BP710 Rejected, BP702): set once, under the consent's lock, so a second run that meets the same
-- answer resumes that key instead of paying under one of its own (src/store/payment-requests.ts
-- `supersedeAttempt`, docs/security.md "Interrupted payments"). A new nullable column: every row
-- stays as it was; attempts superseded before it name no successor and are judged as before.
-- PostgreSQL twin: src/store/pg/migrations/0018_payment_attempt_successor.sql.
ALTER TABLE `payment_attempts` ADD `superseded_by` text;
