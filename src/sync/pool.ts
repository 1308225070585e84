/**
 * Runs `work` with at most `limit` in flight (consents in parallel, config `sync.concurrency`),
 * over a list (`mapPool`) or a queue that hands out the next item or null (`drainQueue`: the run's
 * consents, which on PostgreSQL other workers take from too). A failure starts nothing new and is
 * rethrown only once the items already in flight have finished: the caller leaves the run or
 * closes the store next, and no lane may still be writing when it does.
 */
export async function drainQueue<T>(
  next: () => Promise<T | null>,
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let failure: { error: unknown } | null = null;
  let exhausted = false;
  const lanes = Array.from({ length: Math.max(1, limit) }, async () => {
    while (failure === null && !exhausted) {
      let item: T | null;
      try {
        item = await next();
      } catch (error) {
        failure ??= { error };
        return;
      }
      if (item === null) {
        exhausted = true;
        return;
      }
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  });
  await Promise.all(lanes);
  if (failure !== null) throw (failure as { error: unknown }).error;
}

export async function mapPool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = items.values();
  await drainQueue(
    async () => {
      const next = queue.next();
      return next.done === true ? null : next.value;
    },
    Math.min(limit, items.length),
    work,
  );
}
