/** balance-chain.cases.ts on PostgreSQL. */
import { postgresDialect } from '../support/postgres';
import { balanceChainSuite } from './balance-chain.cases';

balanceChainSuite(postgresDialect);
