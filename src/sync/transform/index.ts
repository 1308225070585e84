export { toRawJson, type TransformContext } from './transform-context';
export { toAccountRow } from './account';
export { toBalanceRow } from './balance';
export { toTransactionRow } from './transaction';
export { toStatementRow } from './statement';
export { formatAddress, toPartyRow } from './party';
export { toRejectInput } from './reject';
export { escapeNul, nulReason, nulTextPath } from './text-rules';
