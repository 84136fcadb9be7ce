/** The runner's limits and defaults, in one place. */

/** Without `until`, the run goes on this long after the last step or expectation window. */
export const defaultSettleMs = 60_000;

/** A bound on the steps of one run; virtual time advances at every step, so a run ends well before. */
export const maxStepsPerRun = 10_000_000;

/** The seed used when neither the command line nor the scenario gives one. */
export const defaultScenarioSeed = 1;
