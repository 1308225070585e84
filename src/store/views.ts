/**
 * The public views and their columns, in order (docs/data-model.md "Views";
 * docs/data-model.md says what each column means). Accounting tools read these views directly
 * and exports select from them: change only by adding columns at the end.
 * The SQL is in migrations/0001_views.sql, 0005_payment_views.sql and (version 0.2: numeric
 * `amount`, exact `amount_text`, NZ dates) 0006_natural_sql_views.sql; test/store/views.test.ts
 * holds both to this list.
 */
export const VIEW_COLUMNS = {
  v_transactions: [
    'consent_id', 'bank', 'account_id', 'transaction_id', 'status', 'booking_date_time', 'booking_date',
    'value_date_time', 'amount', 'amount_minor', 'currency', 'credit_debit_indicator', 'description',
    'merchant_name', 'merchant_category_code', 'creditor_name', 'debtor_name', 'creditor_particulars',
    'creditor_code', 'creditor_reference', 'debtor_particulars', 'debtor_code', 'debtor_reference',
    'bank_transaction_code', 'bank_transaction_subcode', 'proprietary_code', 'balance_after',
    'counterparty_account', 'first_seen_at', 'last_seen_at',
    // version 0.2 (migrations/0006_natural_sql_views.sql): amount/balance_after are REAL above
    'amount_text', 'balance_after_text', 'value_date',
  ],
  v_accounts: [
    'bank', 'account_id', 'consent_id', 'currency', 'nickname', 'description', 'account_type',
    'account_subtype', 'scheme_name', 'identification', 'account_name', 'first_seen_at', 'updated_at',
  ],
  v_balances: [
    'bank', 'account_id', 'type', 'amount', 'amount_minor', 'currency', 'credit_debit_indicator',
    'date_time', 'fetched_at', 'amount_text', 'date',
  ],
  v_statements: [
    'bank', 'account_id', 'statement_id', 'type', 'start_date_time', 'end_date_time', 'creation_date_time',
    'reference', 'file_path', 'file_content_type', 'file_sha256', 'file_bytes', 'start_date', 'end_date',
  ],
  v_parties: [
    'bank', 'consent_id', 'account_id', 'party_id', 'party_type', 'name', 'email', 'phone', 'mobile', 'address',
  ],
  v_consents: [
    'consent_id', 'bank', 'status', 'permissions', 'start_date_time', 'end_date_time', 'expiration_date_time',
    'days_to_expiry', 'last_synced_at', 'last_outcome',
  ],
  v_runs: [
    'run_id', 'started_at', 'finished_at', 'outcome', 'consents', 'requests', 'rows_written', 'failed_units',
    'error_summary',
  ],
  // Payments (docs/data-model.md "Views"; SQL in migrations/0005_payment_views.sql).
  v_payments: [
    'payment_id', 'consent_id', 'status', 'amount', 'currency', 'particulars', 'code', 'reference', 'created_at',
    'status_updated_at', 'amount_text', 'amount_minor', 'created_date',
  ],
  v_payment_matches: ['payment_id', 'bank', 'account_id', 'transaction_id', 'match_rule'],
  // Continuity (docs/data-model.md "v_continuity"; SQL in migrations/0007_continuity.sql).
  v_continuity: [
    'bank', 'account_id', 'kind', 'from_date', 'to_date', 'amount', 'amount_minor', 'currency', 'cause',
    'transaction_id', 'detail', 'from_date_time', 'to_date_time', 'run_id', 'checked_at', 'amount_text',
  ],
} as const satisfies Record<string, readonly string[]>;

export type ViewName = keyof typeof VIEW_COLUMNS;
export const VIEW_NAMES = Object.keys(VIEW_COLUMNS) as ViewName[];
/** One row of a view, as better-sqlite3 returns it (TEXT, INTEGER, REAL or NULL per column). */
export type ViewRow<V extends ViewName> = Record<(typeof VIEW_COLUMNS)[V][number], string | number | null>;
