/** The jobs of `bankdata schedule`, on the schedules of the config (Pacific/Auckland). */
import type { JobContext } from './job-context';
import { expiryCheckJob } from './expiry-check';
import { metaRefreshJob } from './meta-refresh';
import { nightlySyncJob } from './nightly-sync';
import type { Job } from './scheduler';

export type { JobContext } from './job-context';
export {
  nodeCronEngine,
  dstGapCompanion,
  fellInDstGap,
  LATE_TOLERANCE_MS,
  type CronEngine,
  type CronTrigger,
  type NodeCronEngineOptions,
} from './cron-engine';
export { createScheduler, LATE_AFTER_MS, type Job, type JobLine, type JobReport, type Scheduler } from './scheduler';
export { checkConsentExpiry, EXPIRY_CHECK, type ExpiryCheckResult } from './expiry-check';
export { META_REFRESH } from './meta-refresh';
export { NIGHTLY_SYNC } from './nightly-sync';

export interface Schedules {
  sync: string;
  expiryCheck: string;
  metaRefresh: string;
}

export function buildJobs(ctx: JobContext, schedules: Schedules): Job[] {
  return [
    nightlySyncJob(ctx, schedules.sync),
    expiryCheckJob(ctx, schedules.expiryCheck),
    metaRefreshJob(ctx, schedules.metaRefresh),
  ];
}
