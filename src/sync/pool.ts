/**
 * Runs `work` over `items` with at most `limit` in flight (consents in parallel, config
 * `sync.concurrency`). A `limit` function is asked before each item: a lane above it stops
 * (the sync lowers it to what the learned rate needs, see `lanesFor`). A failure starts nothing new and is rethrown only once the items already
 * in flight have finished: the caller releases the run lease or closes the store next, and no
 * lane may still be writing when it does.
 */
export async function mapPool<T>(
  items: readonly T[],
  limit: number | (() => number),
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const limitNow = typeof limit === 'number' ? () => limit : limit;
  const lanes = Array.from({ length: Math.max(1, Math.min(limitNow(), items.length)) }, async (_, lane) => {
    while (failure === null && next < items.length) {
      if (lane > 0 && lane >= limitNow()) return;
      const item = items[next++]!;
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
