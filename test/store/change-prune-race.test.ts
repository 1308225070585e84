/** change-prune-race.cases.ts on SQLite. */
import { sqliteDialect } from '../support/dialects';
import { changePruneRaceSuite } from './change-prune-race.cases';

changePruneRaceSuite(sqliteDialect);
