/**
 * The numbers of random exploration (`kvol sim explore`), each with its unit.
 */

/** Faults drawn for one seed's schedule: between one and this many. */
export const exploreMaxFaultsPerSchedule = 3;

/** Fault times are drawn in whole seconds, so a schedule reads well and replays exactly. */
export const exploreTimeGranularityMs = 1_000;

/** How likely a lasting fault (one with a heal) is healed later in the run rather than left in place. */
export const exploreHealProbability = 0.7;

/** The shortest a healed fault lasts. */
export const exploreMinFaultDurationMs = 10_000;

/** Runs the shrinker may spend cutting a failing schedule down; each is one whole simulated run. */
export const shrinkMaxRuns = 64;

/** The seed the first explored run uses when none is given. */
export const exploreDefaultFirstSeed = 1;

/** The name of the Rng stream fault times, kinds and targets are drawn from (never the cluster's). */
export const exploreRngStreamName = "explore/faults";
