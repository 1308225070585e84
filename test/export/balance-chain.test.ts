/** balance-chain.cases.ts on SQLite. */
import { sqliteDialect } from '../support/dialects';
import { balanceChainSuite } from './balance-chain.cases';

balanceChainSuite(sqliteDialect);
