/**
 * `npm run campaign -- --schedules N --budget T`: the fault campaign (`src/sim/explore/campaign.ts`)
 * over every built-in scenario, or those a pattern picks.
 *
 *   npm run campaign -- --schedules 100000 --budget 8h [--seed S] [--max-faults K]
 *                       [--scenarios REGEX] [--dir DIR] [--out DIR] [--shard K/N] [--quiet]
 *
 * Prints each failure as it is found (saved as a scenario file, with the command that replays it),
 * a progress line every few hundred schedules, and the summary table. Exit status: 0 no failure,
 * 1 a failure, 2 a usage error.
 */
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { ClusterOptions } from "../cmd/cluster.ts";
import { errorMessage } from "../runtime/error-message.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { type CampaignFailure, type CampaignTarget, runCampaign } from "../sim/explore/campaign.ts";
import { failureBlock, failureLines, summary } from "../sim/explore/campaign-report.ts";
import { saveFailureScenario } from "../sim/explore/saved-failure.ts";
import { scenarioRuns } from "../sim/explore/scenario-runs.ts";
import { faultCatalogue } from "../sim/faults/catalogue.ts";
import { defaultScenarioSeed } from "../sim/runner/constants.ts";
import { durationHint, parseDuration } from "../sim/scenario/duration.ts";
import { loadScenarioFile } from "../sim/scenario/load.ts";

export const campaignUsage =
  "npm run campaign -- --schedules N --budget T [--seed S] [--max-faults K] [--scenarios REGEX] [--dir DIR] [--out DIR] [--shard K/N] [--quiet]";

const campaignHelp = `Usage:
  ${campaignUsage}

Runs random fault schedules (as kvol sim explore draws them) over every scenario in DIR (default:
the built-in scenarios/), spread evenly: schedule i goes to scenario i mod S with seed S+i, so the
same --seed gives the same schedules. Stops after N schedules or when T of wall time has passed,
whichever comes first. Every invariant is checked after every step; a schedule that breaks one,
or makes a timeline step fail, is shrunk and saved as a scenario file in --out (printed) that
'kvol sim run FILE' replays.
  --schedules N      at most N schedules (required)
  --budget T         stop starting schedules after T of wall time: 30s, 10m, 8h (required)
  --seed S           the seed of the first schedule (default 1)
  --max-faults K     at most K faults per schedule (default 3)
  --scenarios REGEX  only the scenario files whose name matches
  --dir DIR          where the scenarios are (default: scenarios/ of this checkout)
  --out DIR          where failures are saved (default: a new kvol-campaign-* folder in the temp dir)
  --shard K/N        run only the K-th of N shares of the schedules (N processes share a campaign;
                     each plays every scenario)
  --quiet            no progress lines
`;

const usageExitCode = 2;
const failureExitCode = 1;
/** A progress line after this many schedules. */
const progressEverySchedules = 200;

export const builtinScenariosDir = new URL("../../scenarios/", import.meta.url).pathname;

export interface CampaignArguments {
  readonly schedules: number;
  readonly budgetMs: number;
  readonly seed: number;
  readonly maxFaults?: number;
  readonly pattern?: RegExp;
  readonly dir: string;
  readonly out?: string;
  readonly shard: { readonly index: number; readonly count: number };
  readonly quiet: boolean;
}

function wholeNumber(name: string, text: string | undefined, min: number): number | string | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min) return `--${name}: "${text}" is not a whole number >= ${min}`;
  return Number(text);
}

function readShard(text: string | undefined): CampaignArguments["shard"] | string {
  if (text === undefined) return { index: 0, count: 1 };
  const match = /^(\d+)\/(\d+)$/.exec(text);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || count < 1 || index < 1 || index > count) {
    return `--shard: "${text}" is not K/N with 1 <= K <= N (such as 1/2)`;
  }
  return { index: index - 1, count };
}

/** Reads the arguments; a string is a usage error to print. */
export function parseCampaignArguments(args: readonly string[]): CampaignArguments | string {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...args],
      strict: true,
      options: {
        schedules: { type: "string" },
        budget: { type: "string" },
        seed: { type: "string" },
        "max-faults": { type: "string" },
        scenarios: { type: "string" },
        dir: { type: "string" },
        out: { type: "string" },
        shard: { type: "string" },
        quiet: { type: "boolean" },
      },
    }));
  } catch (error) {
    return errorMessage(error);
  }
  const text = (name: string) => (typeof values[name] === "string" ? (values[name] as string) : undefined);
  const schedules = wholeNumber("schedules", text("schedules"), 1);
  if (typeof schedules === "string") return schedules;
  if (schedules === undefined) return "give the number of schedules to run: --schedules N";
  const budgetText = text("budget");
  if (budgetText === undefined) return "give the wall-time budget: --budget T (such as 10m)";
  const budgetMs = parseDuration(budgetText);
  if (budgetMs === undefined || budgetMs === 0) return `--budget: "${budgetText}" is not a duration (${durationHint})`;
  const seed = wholeNumber("seed", text("seed"), 0);
  if (typeof seed === "string") return seed;
  const maxFaults = wholeNumber("max-faults", text("max-faults"), 1);
  if (typeof maxFaults === "string") return maxFaults;
  const shard = readShard(text("shard"));
  if (typeof shard === "string") return shard;
  let pattern: RegExp | undefined;
  const patternText = text("scenarios");
  if (patternText !== undefined) {
    try {
      pattern = new RegExp(patternText);
    } catch (error) {
      return `--scenarios: ${errorMessage(error)}`;
    }
  }
  const out = text("out");
  return {
    schedules,
    budgetMs,
    seed: seed ?? 1,
    dir: text("dir") ?? builtinScenariosDir,
    shard,
    quiet: values.quiet === true,
    ...(maxFaults === undefined ? {} : { maxFaults }),
    ...(pattern === undefined ? {} : { pattern }),
    ...(out === undefined ? {} : { out: resolve(out) }),
  };
}

/** The scenario files of `dir` that `pattern` picks, in name order. */
export function campaignScenarioFiles(dir: string, pattern?: RegExp): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".yaml") && (pattern === undefined || pattern.test(name)))
    .sort()
    .map((name) => join(dir, name));
}

/** A target per scenario file; `clusterOptions` are test-only (a planted bug). */
export function campaignTargets(files: readonly string[], clusterOptions?: Partial<ClusterOptions>): CampaignTarget[] {
  return files.map((file) => {
    const scenario = loadScenarioFile(file);
    return {
      name: file.slice(file.lastIndexOf("/") + 1).replace(/\.ya?ml$/, ""),
      file,
      runs: scenarioRuns(scenario, clusterOptions === undefined ? {} : { clusterOptions }),
      baselineSeed: scenario.seed ?? defaultScenarioSeed,
    };
  });
}

/** Saves a failure and prints it; returns the saved file. */
export function saveAndPrint(entry: CampaignFailure, outDir: string, write: (text: string) => void): string {
  const path = saveFailureScenario(outDir, entry.scenario.file, {
    seed: entry.failure.seed,
    schedule: entry.failure.shrunk,
    what: failureLines(entry),
    exploreReplay: entry.failure.replayCommand,
  });
  write(failureBlock(entry, path));
  return path;
}

export async function runCampaignCommand(args: readonly string[]): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(campaignHelp);
    return 0;
  }
  const parsed = parseCampaignArguments(args);
  if (typeof parsed === "string") {
    process.stderr.write(`campaign: ${parsed}\n\nUsage:\n  ${campaignUsage}\n`);
    return usageExitCode;
  }
  const files = campaignScenarioFiles(parsed.dir, parsed.pattern);
  if (files.length === 0) {
    process.stderr.write(
      `campaign: no scenario file in ${parsed.dir}${parsed.pattern ? ` matches ${parsed.pattern}` : ""}\n`,
    );
    return usageExitCode;
  }
  let targets: CampaignTarget[];
  try {
    targets = campaignTargets(files);
  } catch (error) {
    process.stderr.write(`campaign: ${errorMessage(error)}\n`);
    return usageExitCode;
  }
  const outDir = parsed.out ?? mkdtempSync(join(tmpdir(), "kvol-campaign-"));
  const write = (text: string) => process.stdout.write(text);
  write(
    `campaign: ${targets.length} scenario(s), up to ${parsed.schedules} schedule(s) from seed ${parsed.seed}, budget ${args[args.indexOf("--budget") + 1] ?? ""}; failures go to ${outDir}\n`,
  );
  let current = "";
  const onBeforeExit = () => {
    process.stderr.write(
      `campaign: the run of ${current} stalled: the simulated cluster waits on something that never happens\n`,
    );
    process.exitCode = failureExitCode;
  };
  process.once("beforeExit", onBeforeExit);
  const result = await runCampaign(targets, {
    schedules: parsed.schedules,
    budgetMs: parsed.budgetMs,
    firstSeed: parsed.seed,
    catalogue: [...faultCatalogue.values()],
    clock: new RealClock(),
    shard: parsed.shard,
    ...(parsed.maxFaults === undefined ? {} : { maxFaults: parsed.maxFaults }),
    onStart: (target, seed) => {
      current = `${target.name} with seed ${seed}`;
    },
    onSchedule: (_target, _seed, _outcome, count) => {
      if (!parsed.quiet && count % progressEverySchedules === 0) write(`  ${count} schedule(s) run\n`);
    },
    onFailure: (entry) => {
      saveAndPrint(entry, outDir, write);
    },
  });
  process.off("beforeExit", onBeforeExit);
  write(summary(result, outDir));
  return result.failures.length === 0 ? 0 : failureExitCode;
}
