/** The entry point of `bankdata` (bin/bankdata.js runs its compiled form, dist/bankdata.js). */
import { main } from './main';
import { endQuietlyOnClosedStdout, keepSighupIgnoredIfInherited } from './stop-signals';

// Before any command runs (stop-signals.ts): a closed stdout ends every command quietly with 141,
// and a SIGHUP ignored when the command started (`nohup`) stays ignored.
endQuietlyOnClosedStdout();
keepSighupIgnoredIfInherited();

process.exitCode = await main(process.argv);
