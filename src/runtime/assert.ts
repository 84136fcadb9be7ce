/**
 * Invariants asserted where they live (DESIGN.md, "Invariants in the code"): a cache or a loop
 * checks its own legal transitions and index consistency, always on. A broken invariant is a bug in
 * kvol, not a condition to retry, so it throws at once, naming the object's key and what was
 * violated, and is also told to every listener (`onInvariantViolation`): an operation that catches
 * the throw and reports it as its own failure cannot hide it, and the simulator's checker stops the
 * run at the faulty instant instead of at the next property it checks.
 */

/** Thrown by `invariant`: `key` names the object (`volume "kvol.io/sim-disk/d-1" on node "n-1"`). */
export class InvariantViolation extends Error {
  constructor(
    readonly key: string,
    readonly violation: string,
  ) {
    super(`invariant violated for ${key}: ${violation}`);
    this.name = "InvariantViolation";
  }
}

type ViolationListener = (violation: InvariantViolation) => void;
const listeners = new Set<ViolationListener>();

/**
 * Calls `listener` with every violation thrown from now on, in this process; returns the function
 * that stops it. Violations are bugs, so a listener sees those of every cluster the process runs.
 */
export function onInvariantViolation(listener: ViolationListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Throws an InvariantViolation unless `condition` holds. `violation` may be a function, so a check
 * on a hot path builds its message only when it fails.
 */
export function invariant(condition: boolean, key: string, violation: string | (() => string)): asserts condition {
  if (condition) return;
  const error = new InvariantViolation(key, typeof violation === "string" ? violation : violation());
  for (const listener of listeners) listener(error);
  throw error;
}

/** The legal moves between the states of one state machine: `from → [to, …]`. */
type Transitions<State extends string> = Readonly<Record<State, readonly State[]>>;

/** Throws unless the machine allows `from → to`; `what` names the state (`device mount state`). */
export function invariantTransition<State extends string>(
  transitions: Transitions<State>,
  key: string,
  what: string,
  from: State,
  to: State,
): void {
  invariant(transitions[from].includes(to), key, () => `${what} may not go from ${from} to ${to}`);
}
