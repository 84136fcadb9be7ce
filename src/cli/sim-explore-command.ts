/**
 * `kvol sim explore`: random fault schedules against one scenario, and the replay of one of them.
 *
 *   kvol sim explore FILE --seeds N [--first-seed S] [--max-faults K] [--faults a,b] [--until T] [--quiet]
 *   kvol sim explore FILE --seed N --replay SCHEDULE [--until T] [--json]
 *
 * Exploring prints a line per seed, and on the first failure (an invariant violated, a timeline
 * step failed) the shrunk schedule and the command that replays it. Replaying plays the scenario
 * with that seed and those faults and prints its report as `kvol sim run` does. Exit status: 0 no
 * failure (replay: everything passed), 1 a failure (replay: a violation, a failed step or a failed
 * expectation), 2 a usage error or a scenario that cannot be read.
 */
import { parseArgs } from "node:util";
import { brokenMultiAttachPolicy } from "../controllers/attachdetach/testing/broken-multi-attach-policy.ts";
import { errorMessage } from "../runtime/error-message.ts";
import type { FaultDefinition } from "../sim/faults/fault.ts";
import { ScenarioError } from "../sim/scenario/scenario-error.ts";

export const simExploreUsage =
  "kvol sim explore FILE --seeds N [--first-seed S] [--max-faults K] [--faults a,b] [--until T] [--quiet]\n" +
  "  kvol sim explore FILE --seed N --replay SCHEDULE [--until T] [--json]";

const simExploreHelp = `Usage:
  ${simExploreUsage}

Plays the scenario once per seed with one to --max-faults random faults of the catalogue
(docs/faults.md), each aimed at something it can hit at that moment. An invariant violation or a
timeline step that failed is a failure (an expectation that fails is not); the first one is shrunk
to the fewest faults that still cause it and printed with the command that replays it.
  --seeds N         how many seeds to explore
  --first-seed S    the first seed (default 1); the others follow it
  --max-faults K    at most K faults per seed (default 3)
  --faults a,b      draw only these faults
  --until T         end every run at T instead of the scenario's end
  --quiet           no line per seed
  --seed N --replay SCHEDULE
                    play one run with that seed and exactly those faults; print its report
  --json            with --replay: the report as JSON, as kvol sim run --json prints it
`;

const usageExitCode = 2;
/** An invariant violated or a timeline step failed (replay: an expectation failed too). */
const failureExitCode = 1;
/** A run that can never finish is a failure too (a liveness bug), reported as such. */
const stalledExitCode = 1;

/** The hidden flag that runs a deliberately broken attach/detach controller (tests of explore itself). */
const brokenMultiAttachFlag = "test-only-break-multi-attach-check";

interface CommonArguments {
  file: string;
  untilText?: string;
  untilMs?: number;
  brokenMultiAttach: boolean;
}

interface ExploreArguments extends CommonArguments {
  mode: "explore";
  seeds: number;
  firstSeed?: number;
  maxFaults?: number;
  faults?: string[];
  quiet: boolean;
}

interface ReplayArguments extends CommonArguments {
  mode: "replay";
  seed: number;
  schedule: string;
  json: boolean;
}

type ParsedArguments = ExploreArguments | ReplayArguments;

function parseOptions(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      seeds: { type: "string" },
      "first-seed": { type: "string" },
      "max-faults": { type: "string" },
      faults: { type: "string" },
      until: { type: "string" },
      quiet: { type: "boolean" },
      seed: { type: "string" },
      replay: { type: "string" },
      json: { type: "boolean" },
      [brokenMultiAttachFlag]: { type: "boolean" },
    },
  });
}

/** A whole number ≥ `min` from `--name`, or the sentence saying what is wrong. */
function wholeNumber(name: string, text: string | undefined, min: number): number | string | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min) return `--${name}: "${text}" is not a whole number >= ${min}`;
  return Number(text);
}

/** Reads the arguments; a string is a usage error to print. */
export async function parseExploreArguments(args: readonly string[]): Promise<ParsedArguments | string> {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(args);
  } catch (error) {
    return errorMessage(error);
  }
  const { values, positionals } = parsed;
  const [file, ...extra] = positionals;
  if (file === undefined) return "name the scenario FILE to explore";
  if (extra.length > 0) return `explore takes one scenario file; unexpected ${JSON.stringify(extra[0])}`;
  const common: CommonArguments = { file, brokenMultiAttach: values[brokenMultiAttachFlag] === true };
  if (values.until !== undefined) {
    const { parseDuration, durationHint } = await import("../sim/scenario/duration.ts");
    const untilMs = parseDuration(values.until);
    if (untilMs === undefined) return `--until: "${values.until}" is not a duration (${durationHint})`;
    Object.assign(common, { untilMs, untilText: values.until });
  }
  if (values.replay !== undefined) return replayArguments(common, values);
  return exploreArguments(common, values);
}

type OptionValues = ReturnType<typeof parseOptions>["values"];

function replayArguments(common: CommonArguments, values: OptionValues): ReplayArguments | string {
  if (values.seeds !== undefined) return "--replay replays one run: give --seed N, not --seeds";
  const seed = wholeNumber("seed", values.seed, 0);
  if (typeof seed === "string") return seed;
  if (seed === undefined) return "--replay needs the --seed of the run it replays";
  return { ...common, mode: "replay", seed, schedule: values.replay ?? "", json: values.json === true };
}

function exploreArguments(common: CommonArguments, values: OptionValues): ExploreArguments | string {
  if (values.seed !== undefined) return "--seed replays one run with --replay; to explore, give --seeds N";
  const seeds = wholeNumber("seeds", values.seeds, 1);
  if (typeof seeds === "string") return seeds;
  if (seeds === undefined) return "give the number of seeds to explore: --seeds N";
  const firstSeed = wholeNumber("first-seed", values["first-seed"], 0);
  if (typeof firstSeed === "string") return firstSeed;
  const maxFaults = wholeNumber("max-faults", values["max-faults"], 1);
  if (typeof maxFaults === "string") return maxFaults;
  return {
    ...common,
    mode: "explore",
    seeds,
    quiet: values.quiet === true,
    ...(firstSeed === undefined ? {} : { firstSeed }),
    ...(maxFaults === undefined ? {} : { maxFaults }),
    ...(values.faults === undefined ? {} : { faults: values.faults.split(",").map((name) => name.trim()) }),
  };
}

/** The catalogue, or the faults named by `--faults`; an unknown name is a usage error. */
async function chosenFaults(names: readonly string[] | undefined): Promise<FaultDefinition[] | string> {
  const { faultCatalogue } = await import("../sim/faults/catalogue.ts");
  if (names === undefined) return [...faultCatalogue.values()];
  const unknown = names.filter((name) => !faultCatalogue.has(name));
  if (unknown.length > 0) {
    return `--faults: unknown fault "${unknown[0]}"; known faults: ${[...faultCatalogue.keys()].join(", ")}`;
  }
  return names.map((name) => faultCatalogue.get(name) as FaultDefinition);
}

/** The run options repeated on the replay command line. */
function replayFlags(parsed: CommonArguments): string[] {
  return [
    ...(parsed.untilText === undefined ? [] : ["--until", parsed.untilText]),
    ...(parsed.brokenMultiAttach ? [`--${brokenMultiAttachFlag}`] : []),
  ];
}

export async function runSimExplore(args: readonly string[]): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(simExploreHelp);
    return 0;
  }
  const parsed = await parseExploreArguments(args);
  if (typeof parsed === "string") {
    process.stderr.write(`kvol sim explore: ${parsed}\n\nUsage:\n  ${simExploreUsage}\n`);
    return usageExitCode;
  }
  try {
    return parsed.mode === "replay" ? await replay(parsed) : await explore(parsed);
  } catch (error) {
    if (error instanceof ScenarioError) {
      process.stderr.write(`kvol sim explore: ${error.message}\n`);
      return usageExitCode;
    }
    throw error;
  }
}

async function explore(parsed: ExploreArguments): Promise<number> {
  const catalogue = await chosenFaults(parsed.faults);
  if (typeof catalogue === "string") {
    process.stderr.write(`kvol sim explore: ${catalogue}\n`);
    return usageExitCode;
  }
  const { loadScenarioFile } = await import("../sim/scenario/load.ts");
  const { exploreScenario } = await import("../sim/explore/explore.ts");
  const { scenarioRuns } = await import("../sim/explore/scenario-runs.ts");
  const report = await import("../sim/explore/explore-report.ts");
  const { RealClock } = await import("../runtime/real-clock.ts");
  const scenario = loadScenarioFile(parsed.file);
  const wallClock = new RealClock();
  const startedMs = wallClock.now();
  process.stdout.write(`explore: ${scenario.name} (${parsed.file})\n`);
  let nextSeed = parsed.firstSeed ?? 1;
  const stall = reportStall(
    () => `the run of seed ${nextSeed} stalled; reproduce it with --first-seed ${nextSeed} --seeds 1`,
  );
  const result = await exploreScenario(scenarioRuns(scenario, runOptions(parsed)), {
    file: parsed.file,
    seeds: parsed.seeds,
    catalogue,
    replayFlags: replayFlags(parsed),
    ...(parsed.firstSeed === undefined ? {} : { firstSeed: parsed.firstSeed }),
    ...(parsed.maxFaults === undefined ? {} : { maxFaults: parsed.maxFaults }),
    onSeed: (seed, outcome) => {
      nextSeed = seed + 1;
      if (!parsed.quiet) process.stdout.write(`${report.seedLine(seed, outcome)}\n`);
    },
  });
  stall.finished();
  if (result.failure !== undefined) process.stdout.write(report.failureReport(result.failure));
  process.stdout.write(report.summaryLine(result, Math.round(wallClock.now() - startedMs)));
  return result.failure === undefined ? 0 : failureExitCode;
}

/**
 * A run whose simulated components all wait on something that never happens leaves Node's event
 * loop empty before the run ends: the process would exit silently, status 0. Say so, and fail.
 */
function reportStall(whatStalled: () => string): { finished(): void } {
  const onBeforeExit = (): void => {
    process.stderr.write(
      `kvol sim explore: ${whatStalled()}: the simulated cluster waits on something that never happens, ` +
        "so virtual time cannot move on.\n",
    );
    process.exitCode = stalledExitCode;
    process.off("beforeExit", onBeforeExit);
  };
  process.on("beforeExit", onBeforeExit);
  return { finished: () => process.off("beforeExit", onBeforeExit) };
}

function runOptions(parsed: CommonArguments) {
  return {
    ...(parsed.untilMs === undefined ? {} : { untilMs: parsed.untilMs }),
    ...(parsed.brokenMultiAttach ? { clusterOptions: { multiAttachPolicy: brokenMultiAttachPolicy } } : {}),
  };
}

async function replay(parsed: ReplayArguments): Promise<number> {
  const { parseFaultSchedule, FaultScheduleError } = await import("../sim/explore/fault-schedule.ts");
  let schedule: ReturnType<typeof parseFaultSchedule>;
  try {
    schedule = parseFaultSchedule(parsed.schedule, "--replay");
  } catch (error) {
    if (!(error instanceof FaultScheduleError)) throw error;
    process.stderr.write(`kvol sim explore: ${error.message}\n`);
    return usageExitCode;
  }
  const unknownFault = await chosenFaults(schedule.map((entry) => entry.fault));
  if (typeof unknownFault === "string") {
    process.stderr.write(`kvol sim explore: ${unknownFault.replace("--faults", "--replay")}\n`);
    return usageExitCode;
  }
  const { loadScenarioFile } = await import("../sim/scenario/load.ts");
  const { runScenario } = await import("../sim/runner/run-scenario.ts");
  const { formatTextReport } = await import("../sim/runner/format-text.ts");
  const { jsonReport } = await import("../sim/runner/format-json.ts");
  const scenario = loadScenarioFile(parsed.file);
  const { clusterOptions, ...untilOption } = runOptions(parsed);
  const stall = reportStall(() => "the replayed run stalled");
  const result = await runScenario(scenario, {
    seed: parsed.seed,
    extraFaults: schedule,
    ...untilOption,
    ...(clusterOptions === undefined ? {} : { clusterOptions }),
  });
  stall.finished();
  const input = { scenarioName: scenario.name, file: parsed.file, result };
  if (parsed.json) process.stdout.write(`${JSON.stringify(jsonReport(input), null, 2)}\n`);
  else process.stdout.write(formatTextReport(input));
  return result.passed ? 0 : failureExitCode;
}
