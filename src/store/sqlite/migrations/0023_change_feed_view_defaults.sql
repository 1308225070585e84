-- The change feed's triggers again (docs/changes.md "What is watched"), generated from the list of
-- sources in src/store/change-feed.ts (npm run -s db:change-feed-sql -- --replace;
-- test/store/change-feed-sql.test.ts holds them equal): a joined table's row inserted or deleted is
-- compared with what v_transactions shows without it (its defaults `uncategorised` and `none`,
-- from src/store/view-definitions.ts), and a duplicate suspicion counts only while open
-- (cleared_at NULL), as the view shows it. The triggers of 0016 logged a first decision of
-- `uncategorised`/`none` as a change of category and category_source, and the deletion of a
-- cleared suspicion as a change of suspected_duplicate, though the view row was the same. Only
-- triggers change: every row stays as it was, entries already logged too.
-- PostgreSQL twin: src/store/pg/migrations/0022_change_feed_view_defaults.sql.
DROP TRIGGER IF EXISTS change_log_transactions_insert;
--> statement-breakpoint
CREATE TRIGGER change_log_transactions_insert AFTER INSERT ON transactions
WHEN NEW.removed_at IS NULL
BEGIN
  INSERT INTO change_log (xid, source, bank, account_id, transaction_id, kind, changed, logged_at)
  VALUES (NULL, 'transactions', NEW.bank, NEW.account_id, NEW.transaction_id, 'insert',
    '',
    strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS change_log_transactions_update;
--> statement-breakpoint
CREATE TRIGGER change_log_transactions_update AFTER UPDATE ON transactions
WHEN OLD.removed_at IS NOT NEW.removed_at OR OLD.consent_id IS NOT NEW.consent_id OR OLD.status IS NOT NEW.status OR OLD.booking_date_time IS NOT NEW.booking_date_time OR OLD.booking_date IS NOT NEW.booking_date OR OLD.value_date_time IS NOT NEW.value_date_time OR OLD.amount IS NOT NEW.amount OR OLD.amount_minor IS NOT NEW.amount_minor OR OLD.currency IS NOT NEW.currency OR OLD.credit_debit_indicator IS NOT NEW.credit_debit_indicator OR OLD.description IS NOT NEW.description OR OLD.merchant_name IS NOT NEW.merchant_name OR OLD.merchant_category_code IS NOT NEW.merchant_category_code OR OLD.creditor_name IS NOT NEW.creditor_name OR OLD.debtor_name IS NOT NEW.debtor_name OR OLD.creditor_particulars IS NOT NEW.creditor_particulars OR OLD.creditor_code IS NOT NEW.creditor_code OR OLD.creditor_reference IS NOT NEW.creditor_reference OR OLD.debtor_particulars IS NOT NEW.debtor_particulars OR OLD.debtor_code IS NOT NEW.debtor_code OR OLD.debtor_reference IS NOT NEW.debtor_reference OR OLD.bank_transaction_code IS NOT NEW.bank_transaction_code OR OLD.bank_transaction_subcode IS NOT NEW.bank_transaction_subcode OR OLD.proprietary_code IS NOT NEW.proprietary_code OR OLD.balance_after IS NOT NEW.balance_after OR OLD.counterparty_account IS NOT NEW.counterparty_account
BEGIN
  INSERT INTO change_log (xid, source, bank, account_id, transaction_id, kind, changed, logged_at)
  VALUES (NULL, 'transactions', NEW.bank, NEW.account_id, NEW.transaction_id, CASE WHEN OLD.removed_at IS NULL AND NEW.removed_at IS NOT NULL THEN 'remove' WHEN OLD.removed_at IS NOT NULL AND NEW.removed_at IS NULL THEN 'insert' ELSE 'update' END,
    rtrim(CASE WHEN OLD.consent_id IS NOT NEW.consent_id THEN 'consent_id,' ELSE '' END
    || CASE WHEN OLD.status IS NOT NEW.status THEN 'status,' ELSE '' END
    || CASE WHEN OLD.booking_date_time IS NOT NEW.booking_date_time THEN 'booking_date_time,' ELSE '' END
    || CASE WHEN OLD.booking_date IS NOT NEW.booking_date THEN 'booking_date,' ELSE '' END
    || CASE WHEN OLD.value_date_time IS NOT NEW.value_date_time THEN 'value_date_time,value_date,' ELSE '' END
    || CASE WHEN OLD.amount IS NOT NEW.amount THEN 'amount,amount_text,' ELSE '' END
    || CASE WHEN OLD.amount_minor IS NOT NEW.amount_minor THEN 'amount_minor,' ELSE '' END
    || CASE WHEN OLD.currency IS NOT NEW.currency THEN 'currency,' ELSE '' END
    || CASE WHEN OLD.credit_debit_indicator IS NOT NEW.credit_debit_indicator THEN 'credit_debit_indicator,' ELSE '' END
    || CASE WHEN OLD.description IS NOT NEW.description THEN 'description,' ELSE '' END
    || CASE WHEN OLD.merchant_name IS NOT NEW.merchant_name THEN 'merchant_name,' ELSE '' END
    || CASE WHEN OLD.merchant_category_code IS NOT NEW.merchant_category_code THEN 'merchant_category_code,' ELSE '' END
    || CASE WHEN OLD.creditor_name IS NOT NEW.creditor_name THEN 'creditor_name,' ELSE '' END
    || CASE WHEN OLD.debtor_name IS NOT NEW.debtor_name THEN 'debtor_name,' ELSE '' END
    || CASE WHEN OLD.creditor_particulars IS NOT NEW.creditor_particulars THEN 'creditor_particulars,' ELSE '' END
    || CASE WHEN OLD.creditor_code IS NOT NEW.creditor_code THEN 'creditor_code,' ELSE '' END
    || CASE WHEN OLD.creditor_reference IS NOT NEW.creditor_reference THEN 'creditor_reference,' ELSE '' END
    || CASE WHEN OLD.debtor_particulars IS NOT NEW.debtor_particulars THEN 'debtor_particulars,' ELSE '' END
    || CASE WHEN OLD.debtor_code IS NOT NEW.debtor_code THEN 'debtor_code,' ELSE '' END
    || CASE WHEN OLD.debtor_reference IS NOT NEW.debtor_reference THEN 'debtor_reference,' ELSE '' END
    || CASE WHEN OLD.bank_transaction_code IS NOT NEW.bank_transaction_code THEN 'bank_transaction_code,' ELSE '' END
    || CASE WHEN OLD.bank_transaction_subcode IS NOT NEW.bank_transaction_subcode THEN 'bank_transaction_subcode,' ELSE '' END
    || CASE WHEN OLD.proprietary_code IS NOT NEW.proprietary_code THEN 'proprietary_code,' ELSE '' END
    || CASE WHEN OLD.balance_after IS NOT NEW.balance_after THEN 'balance_after,balance_after_text,' ELSE '' END
    || CASE WHEN OLD.counterparty_account IS NOT NEW.counterparty_account THEN 'counterparty_account,' ELSE '' END, ','),
    strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS change_log_transactions_delete;
--> statement-breakpoint
CREATE TRIGGER change_log_transactions_delete AFTER DELETE ON transactions
BEGIN
  INSERT INTO change_log (xid, source, bank, account_id, transaction_id, kind, changed, logged_at)
  VALUES (NULL, 'transactions', OLD.bank, OLD.account_id, OLD.transaction_id, 'delete',
    '',
    strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS change_log_transaction_categories_insert;
--> statement-breakpoint
CREATE TRIGGER change_log_transaction_categories_insert AFTER INSERT ON transaction_categories
WHEN 'uncategorised' IS NOT COALESCE(NEW.category, 'uncategorised') OR NULL IS NOT NEW.payee OR 'none' IS NOT COALESCE(NEW.category_source, 'none') OR NULL IS NOT NEW.category_rule
BEGIN
  INSERT INTO change_log (xid, source, bank, account_id, transaction_id, kind, changed, logged_at)
  VALUES (NULL, 'transaction_categories', NEW.bank, NEW.account_id, NEW.transaction_id, 'update',
    rtrim(CASE WHEN 'uncategorised' IS NOT COALESCE(NEW.category, 'uncategorised') THEN 'category,' ELSE '' END
    || CASE WHEN NULL IS NOT NEW.payee THEN 'payee,' ELSE '' END
    || CASE WHEN 'none' IS NOT COALESCE(NEW.category_source, 'none') THEN 'category_source,' ELSE '' END
    || CASE WHEN NULL IS NOT NEW.category_rule THEN 'category_rule,' ELSE '' END, ','),
    strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS change_log_transaction_categories_update;
--> statement-breakpoint
CREATE TRIGGER change_log_transaction_categories_update AFTER UPDATE ON transaction_categories
WHEN COALESCE(OLD.category, 'uncategorised') IS NOT COALESCE(NEW.category, 'uncategorised') OR OLD.payee IS NOT NEW.payee OR COALESCE(OLD.category_source, 'none') IS NOT COALESCE(NEW.category_source, 'none') OR OLD.category_rule IS NOT NEW.category_rule
BEGIN
  INSERT INTO change_log (xid, source, bank, account_id, transaction_id, kind, changed, logged_at)
  VALUES (NULL, 'transaction_categories', NEW.bank, NEW.account_id, NEW.transaction_id, 'update',
    rtrim(CASE WHEN COALESCE(OLD.category, 'uncategorised') IS NOT COALESCE(NEW.category, 'uncategorised') THEN 'category,' ELSE '' END
    || CASE WHEN OLD.payee IS NOT NEW.payee THEN 'payee,' ELSE '' END
    || CASE WHEN COALESCE(OLD.category_source, 'none') IS NOT COALESCE(NEW.category_source, 'none') THEN 'category_source,' ELSE '' END
    || CASE WHEN OLD.category_rule IS NOT NEW.category_rule THEN 'category_rule,' ELSE '' END, ','),
    strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS change_log_transaction_categories_delete;
--> statement-breakpoint
CREATE TRIGGER change_log_transaction_categories_delete AFTER DELETE ON transaction_categories
WHEN COALESCE(OLD.category, 'uncategorised') IS NOT 'uncategorised' OR OLD.payee IS NOT NULL OR COALESCE(OLD.category_source, 'none') IS NOT 'none' OR OLD.category_rule IS NOT NULL
BEGIN
  INSERT INTO change_log (xid, source, bank, account_id, transaction_id, kind, changed, logged_at)
  VALUES (NULL, 'transaction_categories', OLD.bank, OLD.account_id, OLD.transaction_id, 'update',
    rtrim(CASE WHEN COALESCE(OLD.category, 'uncategorised') IS NOT 'uncategorised' THEN 'category,' ELSE '' END
    || CASE WHEN OLD.payee IS NOT NULL THEN 'payee,' ELSE '' END
    || CASE WHEN COALESCE(OLD.category_source, 'none') IS NOT 'none' THEN 'category_source,' ELSE '' END
    || CASE WHEN OLD.category_rule IS NOT NULL THEN 'category_rule,' ELSE '' END, ','),
    strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS change_log_duplicate_suspicions_insert;
--> statement-breakpoint
CREATE TRIGGER change_log_duplicate_suspicions_insert AFTER INSERT ON duplicate_suspicions
WHEN FALSE IS NOT (NEW.cleared_at IS NULL)
BEGIN
  INSERT INTO change_log (xid, source, bank, account_id, transaction_id, kind, changed, logged_at)
  VALUES (NULL, 'duplicate_suspicions', NEW.bank, NEW.account_id, NEW.transaction_id, 'update',
    rtrim(CASE WHEN FALSE IS NOT (NEW.cleared_at IS NULL) THEN 'suspected_duplicate,' ELSE '' END, ','),
    strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS change_log_duplicate_suspicions_update;
--> statement-breakpoint
CREATE TRIGGER change_log_duplicate_suspicions_update AFTER UPDATE ON duplicate_suspicions
WHEN (OLD.cleared_at IS NULL) IS NOT (NEW.cleared_at IS NULL)
BEGIN
  INSERT INTO change_log (xid, source, bank, account_id, transaction_id, kind, changed, logged_at)
  VALUES (NULL, 'duplicate_suspicions', NEW.bank, NEW.account_id, NEW.transaction_id, 'update',
    rtrim(CASE WHEN (OLD.cleared_at IS NULL) IS NOT (NEW.cleared_at IS NULL) THEN 'suspected_duplicate,' ELSE '' END, ','),
    strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS change_log_duplicate_suspicions_delete;
--> statement-breakpoint
CREATE TRIGGER change_log_duplicate_suspicions_delete AFTER DELETE ON duplicate_suspicions
WHEN (OLD.cleared_at IS NULL) IS NOT FALSE
BEGIN
  INSERT INTO change_log (xid, source, bank, account_id, transaction_id, kind, changed, logged_at)
  VALUES (NULL, 'duplicate_suspicions', OLD.bank, OLD.account_id, OLD.transaction_id, 'update',
    rtrim(CASE WHEN (OLD.cleared_at IS NULL) IS NOT FALSE THEN 'suspected_duplicate,' ELSE '' END, ','),
    strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
