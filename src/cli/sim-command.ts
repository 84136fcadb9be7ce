/**
 * `kvol sim`: the simulator's sub-commands, one entry each in `simSubcommands` (loaded on demand).
 *
 *   kvol sim run FILE… [--seed N] [--json] [--until T] [--html OUT.html]
 *
 * `run` plays each scenario and prints its timeline and verdicts (or, with --json, one JSON
 * document; an array for several files). Exit status: 0 all passed, 1 an expectation failed or an
 * invariant was violated, 2 a usage error or a scenario that cannot be read (message, no stack).
 */
import { parseArgs } from "node:util";
import { errorMessage } from "../runtime/error-message.ts";
import type { ScenarioResult } from "../sim/runner/run-scenario.ts";
import type { Scenario } from "../sim/scenario/model.ts";
import { ScenarioError } from "../sim/scenario/scenario-error.ts";

export interface SimSubcommand {
  /** One line for `kvol sim --help`. */
  readonly summary: string;
  readonly usage: string;
  readonly run: (args: readonly string[]) => Promise<number>;
}

const usageExitCode = 2;

export const simSubcommands: ReadonlyMap<string, SimSubcommand> = new Map<string, SimSubcommand>([
  [
    "run",
    {
      summary: "play scenario files and check their expectations",
      usage: "kvol sim run FILE… [--seed N] [--json] [--until T] [--html OUT.html]",
      run: (args) => runSimRun(args),
    },
  ],
  [
    "explore",
    {
      summary: "random fault schedules against a scenario; a violation is shrunk to a replayable schedule",
      usage: "kvol sim explore FILE --seeds N … (kvol sim explore --help)",
      run: async (args) => (await import("./sim-explore-command.ts")).runSimExplore(args),
    },
  ],
]);

function simUsage(): string {
  const rows = [...simSubcommands.values()].map((command) => `  ${command.usage}\n      ${command.summary}`);
  return `Usage:\n${rows.join("\n")}\n\nSee docs/scenarios.md for the scenario format.\n`;
}

export async function runSimCommand(args: readonly string[]): Promise<number> {
  const [name, ...rest] = args;
  if (name === "help" || name === "--help" || name === "-h") {
    process.stdout.write(simUsage());
    return 0;
  }
  if (name === undefined) {
    process.stderr.write(`kvol sim: name a sub-command\n\n${simUsage()}`);
    return usageExitCode;
  }
  const subcommand = simSubcommands.get(name);
  if (subcommand === undefined) {
    process.stderr.write(`kvol sim: unknown sub-command "${name}"\n\n${simUsage()}`);
    return usageExitCode;
  }
  return subcommand.run(rest);
}

export interface RunArguments {
  files: string[];
  seed?: number;
  json: boolean;
  untilMs?: number;
  /** Writes the run as one self-contained web page (the web UI with the recording inlined). */
  html?: string;
}

/** Reads `sim run`'s arguments; a string is a usage error to print. */
export async function parseRunArguments(args: readonly string[]): Promise<RunArguments | string> {
  const { parseDuration, durationHint } = await import("../sim/scenario/duration.ts");
  let parsed: ReturnType<typeof parseRunOptions>;
  try {
    parsed = parseRunOptions(args);
  } catch (error) {
    return errorMessage(error);
  }
  const { values, positionals } = parsed;
  if (positionals.length === 0) return "name at least one scenario file";
  if (values.html !== undefined && positionals.length > 1) return "--html writes one run: name one scenario file";
  if (values.html === "") return "--html: name the file to write, e.g. --html incident.html";
  const result: RunArguments = {
    files: positionals,
    json: values.json === true,
    ...(values.html === undefined ? {} : { html: values.html }),
  };
  if (values.seed !== undefined) {
    if (!/^\d+$/.test(values.seed)) return `--seed: "${values.seed}" is not a whole number`;
    result.seed = Number(values.seed);
  }
  if (values.until !== undefined) {
    const untilMs = parseDuration(values.until);
    if (untilMs === undefined) return `--until: "${values.until}" is not a duration (${durationHint})`;
    result.untilMs = untilMs;
  }
  return result;
}

function parseRunOptions(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      seed: { type: "string" },
      until: { type: "string" },
      json: { type: "boolean" },
      html: { type: "string" },
    },
  });
}

/** Plays the scenario recording what the web UI shows, and writes the page. */
async function runAndWriteHtml(
  scenario: Scenario,
  file: string,
  options: { seed?: number; untilMs?: number },
  htmlPath: string,
): Promise<ScenarioResult> {
  const { recordScenario } = await import("./webui/sim-recording.ts");
  const { writeHtmlReport } = await import("./webui/html-report.ts");
  const { result, recording } = await recordScenario(scenario, file, options);
  await writeHtmlReport(htmlPath, recording);
  process.stderr.write(`kvol sim run: wrote ${htmlPath}\n`);
  return result;
}

async function runSimRun(args: readonly string[]): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(`Usage: ${simSubcommands.get("run")?.usage}\n`);
    return 0;
  }
  const parsed = await parseRunArguments(args);
  if (typeof parsed === "string") {
    process.stderr.write(`kvol sim run: ${parsed}\n\n${simUsage()}`);
    return usageExitCode;
  }
  const { loadScenarioFile } = await import("../sim/scenario/load.ts");
  const { runScenario } = await import("../sim/runner/run-scenario.ts");
  const { formatTextReport } = await import("../sim/runner/format-text.ts");
  const { jsonReport } = await import("../sim/runner/format-json.ts");
  try {
    // Read every file first: a bad scenario is reported before minutes of simulation.
    const scenarios = parsed.files.map((file) => ({ file, scenario: loadScenarioFile(file) }));
    const reports: Record<string, unknown>[] = [];
    let allPassed = true;
    for (const { file, scenario } of scenarios) {
      const runOptions = {
        ...(parsed.seed === undefined ? {} : { seed: parsed.seed }),
        ...(parsed.untilMs === undefined ? {} : { untilMs: parsed.untilMs }),
      };
      const result =
        parsed.html === undefined
          ? await runScenario(scenario, runOptions)
          : await runAndWriteHtml(scenario, file, runOptions, parsed.html);
      allPassed &&= result.passed;
      const input = { scenarioName: scenario.name, file, result };
      if (parsed.json) reports.push(jsonReport(input));
      else process.stdout.write(`${formatTextReport(input)}${scenarios.length > 1 ? "\n" : ""}`);
    }
    if (parsed.json) {
      process.stdout.write(`${JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2)}\n`);
    }
    return allPassed ? 0 : 1;
  } catch (error) {
    if (error instanceof ScenarioError) {
      process.stderr.write(`kvol sim run: ${error.message}\n`);
      return usageExitCode;
    }
    throw error;
  }
}
