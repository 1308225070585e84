/**
 * Runs `work` with at most `limit` in flight (consents in parallel, config `sync.concurrency`),
 * over a list (`mapPool`) or a queue that hands out the next item or null (`drainQueue`: the run's
 * consents, which on PostgreSQL other workers take from too). A failure starts nothing new and is
 * rethrown only once the items already in flight have finished: the caller leaves the run or
 * closes the store next, and no lane may still be writing when it does.
 *
 * With `lanes` (the run's, `runLanes`), each of drainQueue's lanes holds one while it runs and
 * gives it back when the queue has nothing more for it: a spare lane, which the items still
 * running take to run their own parts side by side (`mapSpare`).
 */
export async function drainQueue<T>(
  next: () => Promise<T | null>,
  limit: number,
  work: (item: T) => Promise<void>,
  lanes?: Lanes,
): Promise<void> {
  let failure: { error: unknown } | null = null;
  let exhausted = false;
  const running = Array.from({ length: Math.max(1, limit) }, async () => {
    const release = lanes?.take() ?? null;
    try {
      await drainLane();
    } finally {
      release?.();
    }
  });
  async function drainLane(): Promise<void> {
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
  }
  await Promise.all(running);
  if (failure !== null) throw (failure as { error: unknown }).error;
}

/**
 * The run's lanes, config `sync.concurrency`: at most that many chains of requests at once. The
 * consents' lanes (drainQueue) hold them first; once the queue has no consent left to start, the
 * lanes it gives back are spare, and a consent still running takes them to run its accounts, an
 * account's units and its statement files side by side (`mapSpare`, src/sync/consent.ts). So the
 * run's last consents do not each walk their accounts one request at a time while the other lanes
 * idle: at a long latency that tail, not the bank's rate, bounded the run.
 */
export interface Lanes {
  /** Takes a free lane (drainQueue's own): its release (a second call does nothing), or null when every lane is taken. */
  take(): (() => void) | null;
  /** Takes a free lane as a spare one: as `take`, and null too while spare lanes are closed (`spareOpen`). */
  spare(): (() => void) | null;
  /** Whether spare lanes may be taken now (`runLanes`' predicate): a helper gives its lane back at its next item when not. */
  spareOpen(): boolean;
  /** Calls `listener` each time a lane is given back, until the returned function is called. */
  whenFree(listener: () => void): () => void;
}

export function runLanes(
  total: number,
  spareOpen: () => boolean = () => true,
  /** While spares are closed, how often to ask `spareOpen` again and wake the waiting maps, ms. */
  recheckMs = 1000,
): Lanes {
  let taken = 0;
  const listeners = new Set<() => void>();
  let recheck: NodeJS.Timeout | null = null;
  const wake = () => {
    for (const listener of [...listeners]) listener();
  };
  return {
    spareOpen,
    spare() {
      // The count first: the predicate reads the client's state, and most asks find no lane free.
      if (taken >= Math.max(1, total)) return null;
      if (spareOpen()) return this.take();
      // Closed now: nothing else would tell the maps waiting for a lane when they open again (a
      // lane given back does, but every lane may be free already). One timer, not holding the process.
      if (recheck === null && listeners.size > 0) {
        recheck = setTimeout(() => {
          recheck = null;
          wake();
        }, recheckMs);
        recheck.unref();
      }
      return null;
    },
    take() {
      if (taken >= Math.max(1, total)) return null;
      taken += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        taken -= 1;
        // The first listener that takes it has it; the others find every lane taken.
        wake();
      };
    },
    whenFree(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/**
 * Runs `work` over `items` in their order on the calling lane, and on spare lanes beside it while
 * any is free: at each item's start, and whenever a lane is given back while items are left, a
 * free lane (`Lanes.take`) starts a helper that takes the next items too and gives its lane back
 * when none is left. Without `lanes`, or with none free, one item after another. A failure starts
 * nothing new and is rethrown once the items in flight have finished (as drainQueue).
 */
export async function mapSpare<T>(
  items: readonly T[],
  lanes: Lanes | undefined,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let index = 0;
  let failure: { error: unknown } | null = null;
  const helpers: Promise<void>[] = [];
  const help = () => {
    while (lanes !== undefined && failure === null && index < items.length) {
      const release = lanes.spare();
      if (release === null) return;
      helpers.push(lane(release));
    }
  };
  async function lane(release: (() => void) | null): Promise<void> {
    try {
      // A helper (a spare lane) gives it back once spare lanes close; the calling lane goes on.
      while (failure === null && index < items.length && (release === null || lanes?.spareOpen() !== false)) {
        const item = items[index] as T;
        index += 1;
        // The item starts first, then the lanes free now start the next ones: items start in order.
        const done = work(item);
        help();
        try {
          await done;
        } catch (error) {
          failure ??= { error };
        }
      }
    } finally {
      release?.();
    }
  }
  const stopListening = lanes?.whenFree(help) ?? (() => undefined);
  try {
    await lane(null);
  } finally {
    stopListening();
  }
  // Helpers started while the others ran are in the list too.
  for (let i = 0; i < helpers.length; i++) await helpers[i];
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
