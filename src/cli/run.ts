/** The entry point of `bankdata` (bin/bankdata.js runs its compiled form, dist/bankdata.js). */
import { main } from './main';

process.exitCode = await main(process.argv);
