/** change-prune-race.cases.ts on PostgreSQL. */
import { postgresDialect } from '../support/postgres';
import { changePruneRaceSuite } from './change-prune-race.cases';

changePruneRaceSuite(postgresDialect);
