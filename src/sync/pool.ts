/**
 * Runs `work` over `items` with at most `limit` in flight (consents in parallel, config
 * `sync.concurrency`). A failure starts nothing new and is rethrown only once the items already
 * in flight have finished: the caller releases the run lease or closes the store next, and no
 * lane may still be writing when it does.
 */
export async function mapPool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (failure === null && next < items.length) {
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
