/**
 * Delta debugging (Zeller's ddmin) over a list: the smallest sub-list, in the original order, for
 * which `stillFails` holds, such that removing any single element makes it pass (1-minimal). Used
 * to cut a random fault schedule that broke an invariant down to the faults that matter.
 *
 * Each call of `stillFails` is a whole simulated run, so the number of calls is bounded by
 * `maxRuns`; when the budget runs out, the smallest failing list found so far is returned.
 */

type FailurePredicate<T> = (candidate: readonly T[]) => Promise<boolean>;

interface ShrinkResult<T> {
  /** The smallest failing list found (the input itself when nothing smaller fails). */
  readonly items: readonly T[];
  /** How many times `stillFails` was called. */
  readonly runs: number;
  /** False when `maxRuns` ended the search before the result was 1-minimal. */
  readonly minimal: boolean;
}

/** Splits `items` into `parts` contiguous chunks of near-equal size (the first ones one longer). */
function chunks<T>(items: readonly T[], parts: number): T[][] {
  const result: T[][] = [];
  const baseSize = Math.floor(items.length / parts);
  const longer = items.length % parts;
  let start = 0;
  for (let index = 0; index < parts; index++) {
    const size = baseSize + (index < longer ? 1 : 0);
    result.push(items.slice(start, start + size));
    start += size;
  }
  return result;
}

function without<T>(groups: readonly T[][], skipped: number): T[] {
  return groups.flatMap((group, index) => (index === skipped ? [] : group));
}

/**
 * ddmin: try each chunk alone, then each complement, refining the granularity when neither fails.
 * `items` must fail already (the caller observed it); that run is not repeated.
 */
export async function shrinkList<T>(
  items: readonly T[],
  stillFails: FailurePredicate<T>,
  maxRuns: number,
): Promise<ShrinkResult<T>> {
  let current = [...items];
  let granularity = 2;
  let runs = 0;
  const fails = async (candidate: readonly T[]): Promise<boolean> => {
    runs++;
    return stillFails(candidate);
  };
  if (current.length > 0 && runs < maxRuns && (await fails([]))) return { items: [], runs, minimal: true };
  while (current.length >= 2) {
    const groups = chunks(current, Math.min(granularity, current.length));
    let reduced = false;
    for (let index = 0; index < groups.length && !reduced; index++) {
      if (runs >= maxRuns) return { items: current, runs, minimal: false };
      const group = groups[index] as T[];
      if (groups.length > 2 && (await fails(group))) {
        current = group;
        granularity = 2;
        reduced = true;
      }
    }
    for (let index = 0; index < groups.length && !reduced; index++) {
      if (runs >= maxRuns) return { items: current, runs, minimal: false };
      const complement = without(groups, index);
      if (await fails(complement)) {
        current = complement;
        granularity = Math.max(granularity - 1, 2);
        reduced = true;
      }
    }
    if (reduced) continue;
    if (granularity >= current.length) break;
    granularity = Math.min(granularity * 2, current.length);
  }
  return { items: current, runs, minimal: true };
}
