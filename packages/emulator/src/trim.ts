/**
 * Payload levels and filters (docs/bank-api.md §3): Basic omits the Detail-only fields; Detail wins when
 * both are held; ReadTransactionsCredits / ReadTransactionsDebits filter by direction.
 */
import { payloadLevel } from '@bankdata/core/endpoint-access';
import type { Account, Statement, Transaction } from '@bankdata/core/schemas';

export function trimAccount(account: Account, granted: readonly string[]): Account {
  if (payloadLevel(granted, 'ReadAccountsBasic', 'ReadAccountsDetail') === 'Detail') return account;
  const { Account: _identification, Servicer: _servicer, ...basic } = account;
  return basic;
}

export function trimTransaction(transaction: Transaction, granted: readonly string[]): Transaction {
  if (payloadLevel(granted, 'ReadTransactionsBasic', 'ReadTransactionsDetail') === 'Detail') return transaction;
  const {
    TransactionInformation: _information,
    Balance: _balance,
    MerchantDetails: _merchant,
    CreditorAgent: _creditorAgent,
    CreditorAccount: _creditorAccount,
    DebtorAgent: _debtorAgent,
    DebtorAccount: _debtorAccount,
    ...basic
  } = transaction;
  return basic;
}

/**
 * A statement at the consent's level (docs/bank-api.md §3): the endpoints need ReadStatements, and
 * ReadStatementsBasic without ReadStatementsDetail leaves out the amounts.
 */
export function trimStatement(statement: Statement, granted: readonly string[]): Statement {
  if (payloadLevel(granted, 'ReadStatementsBasic', 'ReadStatementsDetail') === 'Detail') return statement;
  const {
    StatementBenefit: _benefit,
    StatementFee: _fee,
    StatementInterest: _interest,
    StatementRate: _rate,
    StatementValue: _value,
    StatementAmount: _amount,
    ...basic
  } = statement;
  return basic;
}
