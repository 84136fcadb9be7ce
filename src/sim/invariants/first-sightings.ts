/**
 * Whether a standing problem was allowed when it began. Some states are wrong or allowed depending
 * on the moment they arose, not on the moment they are looked at: a mount left on a disk that the
 * attach/detach controller force-detached from a not-Ready node is allowed (spec §2.7), and stays
 * allowed after the node comes back Ready, until its kubelet cleans it up. Checks run after every
 * step, so the first sighting of a problem is the step it arose in; this remembers its verdict for
 * as long as the problem is seen, and forgets problems that are gone.
 */
export class FirstSightings {
  private readonly allowedByKey = new Map<string, boolean>();
  private seenThisRound = new Set<string>();

  /** Starts a round of checks: problems not seen again by `endRound` are forgotten. */
  beginRound(): void {
    this.seenThisRound = new Set();
  }

  /** Whether the problem `key` is allowed: `allowedNow` on its first sighting, the remembered verdict after. */
  allowed(key: string, allowedNow: boolean): boolean {
    this.seenThisRound.add(key);
    const remembered = this.allowedByKey.get(key);
    if (remembered !== undefined) return remembered;
    this.allowedByKey.set(key, allowedNow);
    return allowedNow;
  }

  endRound(): void {
    for (const key of [...this.allowedByKey.keys()]) {
      if (!this.seenThisRound.has(key)) this.allowedByKey.delete(key);
    }
  }
}

/** One state object per cluster for an invariant that remembers across checks. */
export function perCluster<C extends object, S>(create: () => S): (cluster: C) => S {
  const states = new WeakMap<C, S>();
  return (cluster) => {
    let state = states.get(cluster);
    if (state === undefined) {
      state = create();
      states.set(cluster, state);
    }
    return state;
  };
}
