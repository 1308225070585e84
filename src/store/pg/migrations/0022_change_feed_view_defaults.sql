-- The change feed's triggers again (docs/changes.md "What is watched"), generated from the list of
-- sources in src/store/change-feed.ts (npm run -s db:change-feed-sql -- --replace;
-- test/store/change-feed-sql.test.ts holds them equal): a joined table's row inserted or deleted is
-- compared with what v_transactions shows without it (its defaults `uncategorised` and `none`,
-- from src/store/view-definitions.ts), and a duplicate suspicion counts only while open
-- (cleared_at NULL), as the view shows it. The triggers of 0014 logged a first decision of
-- `uncategorised`/`none` as a change of category and category_source, and the deletion of a
-- cleared suspicion as a change of suspected_duplicate, though the view row was the same. Only
-- triggers change: every row stays as it was, entries already logged too.
-- SQLite twin: src/store/sqlite/migrations/0023_change_feed_view_defaults.sql.
DROP TRIGGER IF EXISTS change_log_transactions_insert ON transactions;
--> statement-breakpoint
DROP FUNCTION IF EXISTS change_log_transactions_insert();
--> statement-breakpoint
CREATE FUNCTION change_log_transactions_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO change_log (xid, source, bank, account_id, transaction_id, kind, changed, logged_at)
  VALUES (pg_current_xact_id()::text::bigint, 'transactions', NEW.bank, NEW.account_id, NEW.transaction_id, 'insert',
    '',
    to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER change_log_transactions_insert AFTER INSERT ON transactions FOR EACH ROW
WHEN (NEW.removed_at IS NULL)
EXECUTE FUNCTION change_log_transactions_insert();
--> statement-breakpoint
DROP TRIGGER IF EXISTS change_log_transactions_update ON transactions;
--> statement-breakpoint
DROP FUNCTION IF EXISTS change_log_transactions_update();
--> statement-breakpoint
CREATE FUNCTION change_log_transactions_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO change_log (xid, source, bank, account_id, transaction_id, kind, changed, logged_at)
  VALUES (pg_current_xact_id()::text::bigint, 'transactions', NEW.bank, NEW.account_id, NEW.transaction_id, CASE WHEN OLD.removed_at IS NULL AND NEW.removed_at IS NOT NULL THEN 'remove' WHEN OLD.removed_at IS NOT NULL AND NEW.removed_at IS NULL THEN 'insert' ELSE 'update' END,
    rtrim(CASE WHEN OLD.consent_id IS DISTINCT FROM NEW.consent_id THEN 'consent_id,' ELSE '' END
    || CASE WHEN OLD.status IS DISTINCT FROM NEW.status THEN 'status,' ELSE '' END
    || CASE WHEN OLD.booking_date_time IS DISTINCT FROM NEW.booking_date_time THEN 'booking_date_time,' ELSE '' END
    || CASE WHEN OLD.booking_date IS DISTINCT FROM NEW.booking_date THEN 'booking_date,' ELSE '' END
    || CASE WHEN OLD.value_date_time IS DISTINCT FROM NEW.value_date_time THEN 'value_date_time,value_date,' ELSE '' END
    || CASE WHEN OLD.amount IS DISTINCT FROM NEW.amount THEN 'amount,amount_text,' ELSE '' END
    || CASE WHEN OLD.amount_minor IS DISTINCT FROM NEW.amount_minor THEN 'amount_minor,' ELSE '' END
    || CASE WHEN OLD.currency IS DISTINCT FROM NEW.currency THEN 'currency,' ELSE '' END
    || CASE WHEN OLD.credit_debit_indicator IS DISTINCT FROM NEW.credit_debit_indicator THEN 'credit_debit_indicator,' ELSE '' END
    || CASE WHEN OLD.description IS DISTINCT FROM NEW.description THEN 'description,' ELSE '' END
    || CASE WHEN OLD.merchant_name IS DISTINCT FROM NEW.merchant_name THEN 'merchant_name,' ELSE '' END
    || CASE WHEN OLD.merchant_category_code IS DISTINCT FROM NEW.merchant_category_code THEN 'merchant_category_code,' ELSE '' END
    || CASE WHEN OLD.creditor_name IS DISTINCT FROM NEW.creditor_name THEN 'creditor_name,' ELSE '' END
    || CASE WHEN OLD.debtor_name IS DISTINCT FROM NEW.debtor_name THEN 'debtor_name,' ELSE '' END
    || CASE WHEN OLD.creditor_particulars IS DISTINCT FROM NEW.creditor_particulars THEN 'creditor_particulars,' ELSE '' END
    || CASE WHEN OLD.creditor_code IS DISTINCT FROM NEW.creditor_code THEN 'creditor_code,' ELSE '' END
    || CASE WHEN OLD.creditor_reference IS DISTINCT FROM NEW.creditor_reference THEN 'creditor_reference,' ELSE '' END
    || CASE WHEN OLD.debtor_particulars IS DISTINCT FROM NEW.debtor_particulars THEN 'debtor_particulars,' ELSE '' END
    || CASE WHEN OLD.debtor_code IS DISTINCT FROM NEW.debtor_code THEN 'debtor_code,' ELSE '' END
    || CASE WHEN OLD.debtor_reference IS DISTINCT FROM NEW.debtor_reference THEN 'debtor_reference,' ELSE '' END
    || CASE WHEN OLD.bank_transaction_code IS DISTINCT FROM NEW.bank_transaction_code THEN 'bank_transaction_code,' ELSE '' END
    || CASE WHEN OLD.bank_transaction_subcode IS DISTINCT FROM NEW.bank_transaction_subcode THEN 'bank_transaction_subcode,' ELSE '' END
    || CASE WHEN OLD.proprietary_code IS DISTINCT FROM NEW.proprietary_code THEN 'proprietary_code,' ELSE '' END
    || CASE WHEN OLD.balance_after IS DISTINCT FROM NEW.balance_after THEN 'balance_after,balance_after_text,' ELSE '' END
    || CASE WHEN OLD.counterparty_account IS DISTINCT FROM NEW.counterparty_account THEN 'counterparty_account,' ELSE '' END, ','),
    to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER change_log_transactions_update AFTER UPDATE ON transactions FOR EACH ROW
WHEN (OLD.removed_at IS DISTINCT FROM NEW.removed_at OR OLD.consent_id IS DISTINCT FROM NEW.consent_id OR OLD.status IS DISTINCT FROM NEW.status OR OLD.booking_date_time IS DISTINCT FROM NEW.booking_date_time OR OLD.booking_date IS DISTINCT FROM NEW.booking_date OR OLD.value_date_time IS DISTINCT FROM NEW.value_date_time OR OLD.amount IS DISTINCT FROM NEW.amount OR OLD.amount_minor IS DISTINCT FROM NEW.amount_minor OR OLD.currency IS DISTINCT FROM NEW.currency OR OLD.credit_debit_indicator IS DISTINCT FROM NEW.credit_debit_indicator OR OLD.description IS DISTINCT FROM NEW.description OR OLD.merchant_name IS DISTINCT FROM NEW.merchant_name OR OLD.merchant_category_code IS DISTINCT FROM NEW.merchant_category_code OR OLD.creditor_name IS DISTINCT FROM NEW.creditor_name OR OLD.debtor_name IS DISTINCT FROM NEW.debtor_name OR OLD.creditor_particulars IS DISTINCT FROM NEW.creditor_particulars OR OLD.creditor_code IS DISTINCT FROM NEW.creditor_code OR OLD.creditor_reference IS DISTINCT FROM NEW.creditor_reference OR OLD.debtor_particulars IS DISTINCT FROM NEW.debtor_particulars OR OLD.debtor_code IS DISTINCT FROM NEW.debtor_code OR OLD.debtor_reference IS DISTINCT FROM NEW.debtor_reference OR OLD.bank_transaction_code IS DISTINCT FROM NEW.bank_transaction_code OR OLD.bank_transaction_subcode IS DISTINCT FROM NEW.bank_transaction_subcode OR OLD.proprietary_code IS DISTINCT FROM NEW.proprietary_code OR OLD.balance_after IS DISTINCT FROM NEW.balance_after OR OLD.counterparty_account IS DISTINCT FROM NEW.counterparty_account)
EXECUTE FUNCTION change_log_transactions_update();
--> statement-breakpoint
DROP TRIGGER IF EXISTS change_log_transactions_delete ON transactions;
--> statement-breakpoint
DROP FUNCTION IF EXISTS change_log_transactions_delete();
--> statement-breakpoint
CREATE FUNCTION change_log_transactions_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO change_log (xid, source, bank, account_id, transaction_id, kind, changed, logged_at)
  VALUES (pg_current_xact_id()::text::bigint, 'transactions', OLD.bank, OLD.account_id, OLD.transaction_id, 'delete',
    '',
    to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER change_log_transactions_delete AFTER DELETE ON transactions FOR EACH ROW
EXECUTE FUNCTION change_log_transactions_delete();
--> statement-breakpoint
DROP TRIGGER IF EXISTS change_log_transaction_categories_insert ON transaction_categories;
--> statement-breakpoint
DROP FUNCTION IF EXISTS change_log_transaction_categories_insert();
--> statement-breakpoint
CREATE FUNCTION change_log_transaction_categories_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO change_log (xid, source, bank, account_id, transaction_id, kind, changed, logged_at)
  VALUES (pg_current_xact_id()::text::bigint, 'transaction_categories', NEW.bank, NEW.account_id, NEW.transaction_id, 'update',
    rtrim(CASE WHEN 'uncategorised' IS DISTINCT FROM COALESCE(NEW.category, 'uncategorised') THEN 'category,' ELSE '' END
    || CASE WHEN NULL IS DISTINCT FROM NEW.payee THEN 'payee,' ELSE '' END
    || CASE WHEN 'none' IS DISTINCT FROM COALESCE(NEW.category_source, 'none') THEN 'category_source,' ELSE '' END
    || CASE WHEN NULL IS DISTINCT FROM NEW.category_rule THEN 'category_rule,' ELSE '' END, ','),
    to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER change_log_transaction_categories_insert AFTER INSERT ON transaction_categories FOR EACH ROW
WHEN ('uncategorised' IS DISTINCT FROM COALESCE(NEW.category, 'uncategorised') OR NULL IS DISTINCT FROM NEW.payee OR 'none' IS DISTINCT FROM COALESCE(NEW.category_source, 'none') OR NULL IS DISTINCT FROM NEW.category_rule)
EXECUTE FUNCTION change_log_transaction_categories_insert();
--> statement-breakpoint
DROP TRIGGER IF EXISTS change_log_transaction_categories_update ON transaction_categories;
--> statement-breakpoint
DROP FUNCTION IF EXISTS change_log_transaction_categories_update();
--> statement-breakpoint
CREATE FUNCTION change_log_transaction_categories_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO change_log (xid, source, bank, account_id, transaction_id, kind, changed, logged_at)
  VALUES (pg_current_xact_id()::text::bigint, 'transaction_categories', NEW.bank, NEW.account_id, NEW.transaction_id, 'update',
    rtrim(CASE WHEN COALESCE(OLD.category, 'uncategorised') IS DISTINCT FROM COALESCE(NEW.category, 'uncategorised') THEN 'category,' ELSE '' END
    || CASE WHEN OLD.payee IS DISTINCT FROM NEW.payee THEN 'payee,' ELSE '' END
    || CASE WHEN COALESCE(OLD.category_source, 'none') IS DISTINCT FROM COALESCE(NEW.category_source, 'none') THEN 'category_source,' ELSE '' END
    || CASE WHEN OLD.category_rule IS DISTINCT FROM NEW.category_rule THEN 'category_rule,' ELSE '' END, ','),
    to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER change_log_transaction_categories_update AFTER UPDATE ON transaction_categories FOR EACH ROW
WHEN (COALESCE(OLD.category, 'uncategorised') IS DISTINCT FROM COALESCE(NEW.category, 'uncategorised') OR OLD.payee IS DISTINCT FROM NEW.payee OR COALESCE(OLD.category_source, 'none') IS DISTINCT FROM COALESCE(NEW.category_source, 'none') OR OLD.category_rule IS DISTINCT FROM NEW.category_rule)
EXECUTE FUNCTION change_log_transaction_categories_update();
--> statement-breakpoint
DROP TRIGGER IF EXISTS change_log_transaction_categories_delete ON transaction_categories;
--> statement-breakpoint
DROP FUNCTION IF EXISTS change_log_transaction_categories_delete();
--> statement-breakpoint
CREATE FUNCTION change_log_transaction_categories_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO change_log (xid, source, bank, account_id, transaction_id, kind, changed, logged_at)
  VALUES (pg_current_xact_id()::text::bigint, 'transaction_categories', OLD.bank, OLD.account_id, OLD.transaction_id, 'update',
    rtrim(CASE WHEN COALESCE(OLD.category, 'uncategorised') IS DISTINCT FROM 'uncategorised' THEN 'category,' ELSE '' END
    || CASE WHEN OLD.payee IS DISTINCT FROM NULL THEN 'payee,' ELSE '' END
    || CASE WHEN COALESCE(OLD.category_source, 'none') IS DISTINCT FROM 'none' THEN 'category_source,' ELSE '' END
    || CASE WHEN OLD.category_rule IS DISTINCT FROM NULL THEN 'category_rule,' ELSE '' END, ','),
    to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER change_log_transaction_categories_delete AFTER DELETE ON transaction_categories FOR EACH ROW
WHEN (COALESCE(OLD.category, 'uncategorised') IS DISTINCT FROM 'uncategorised' OR OLD.payee IS DISTINCT FROM NULL OR COALESCE(OLD.category_source, 'none') IS DISTINCT FROM 'none' OR OLD.category_rule IS DISTINCT FROM NULL)
EXECUTE FUNCTION change_log_transaction_categories_delete();
--> statement-breakpoint
DROP TRIGGER IF EXISTS change_log_duplicate_suspicions_insert ON duplicate_suspicions;
--> statement-breakpoint
DROP FUNCTION IF EXISTS change_log_duplicate_suspicions_insert();
--> statement-breakpoint
CREATE FUNCTION change_log_duplicate_suspicions_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO change_log (xid, source, bank, account_id, transaction_id, kind, changed, logged_at)
  VALUES (pg_current_xact_id()::text::bigint, 'duplicate_suspicions', NEW.bank, NEW.account_id, NEW.transaction_id, 'update',
    rtrim(CASE WHEN FALSE IS DISTINCT FROM (NEW.cleared_at IS NULL) THEN 'suspected_duplicate,' ELSE '' END, ','),
    to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER change_log_duplicate_suspicions_insert AFTER INSERT ON duplicate_suspicions FOR EACH ROW
WHEN (FALSE IS DISTINCT FROM (NEW.cleared_at IS NULL))
EXECUTE FUNCTION change_log_duplicate_suspicions_insert();
--> statement-breakpoint
DROP TRIGGER IF EXISTS change_log_duplicate_suspicions_update ON duplicate_suspicions;
--> statement-breakpoint
DROP FUNCTION IF EXISTS change_log_duplicate_suspicions_update();
--> statement-breakpoint
CREATE FUNCTION change_log_duplicate_suspicions_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO change_log (xid, source, bank, account_id, transaction_id, kind, changed, logged_at)
  VALUES (pg_current_xact_id()::text::bigint, 'duplicate_suspicions', NEW.bank, NEW.account_id, NEW.transaction_id, 'update',
    rtrim(CASE WHEN (OLD.cleared_at IS NULL) IS DISTINCT FROM (NEW.cleared_at IS NULL) THEN 'suspected_duplicate,' ELSE '' END, ','),
    to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER change_log_duplicate_suspicions_update AFTER UPDATE ON duplicate_suspicions FOR EACH ROW
WHEN ((OLD.cleared_at IS NULL) IS DISTINCT FROM (NEW.cleared_at IS NULL))
EXECUTE FUNCTION change_log_duplicate_suspicions_update();
--> statement-breakpoint
DROP TRIGGER IF EXISTS change_log_duplicate_suspicions_delete ON duplicate_suspicions;
--> statement-breakpoint
DROP FUNCTION IF EXISTS change_log_duplicate_suspicions_delete();
--> statement-breakpoint
CREATE FUNCTION change_log_duplicate_suspicions_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO change_log (xid, source, bank, account_id, transaction_id, kind, changed, logged_at)
  VALUES (pg_current_xact_id()::text::bigint, 'duplicate_suspicions', OLD.bank, OLD.account_id, OLD.transaction_id, 'update',
    rtrim(CASE WHEN (OLD.cleared_at IS NULL) IS DISTINCT FROM FALSE THEN 'suspected_duplicate,' ELSE '' END, ','),
    to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER change_log_duplicate_suspicions_delete AFTER DELETE ON duplicate_suspicions FOR EACH ROW
WHEN ((OLD.cleared_at IS NULL) IS DISTINCT FROM FALSE)
EXECUTE FUNCTION change_log_duplicate_suspicions_delete();
