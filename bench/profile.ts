/**
 * `npm run profile -- NAME [--top N] [--by self|total] [--out FILE] [--interval-us N]`: runs the
 * benchmark NAME of `npm run bench` (sim-scale, store, …) under V8's CPU profiler, writes the
 * `.cpuprofile` (open it in Chrome DevTools' Performance panel or VS Code) and prints the top N
 * functions by self time and by total time, each with its TypeScript file:line. The benchmark's
 * own environment variables apply (`KVOL_BENCH_SIM_NODES=100 npm run profile -- sim-scale`).
 * `--compare EARLIER.cpuprofile` adds the functions whose share of the time grew most since that
 * profile (the same benchmark at a smaller size shows what grows faster than the rest).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { formatShareChanges, growingShares } from "./cpu-profile-diff.ts";
import { type CpuProfile, formatProfileSummary, summariseCpuProfile } from "./cpu-profile-summary.ts";

const usage = `Usage: npm run profile -- NAME… [--top N] [--by self|total] [--out FILE] [--interval-us N] [--compare FILE]
  NAME            a benchmark of npm run bench (sim-scale, store, protobuf, real-node, etcd)
  --top N         functions to list (default 25)
  --by self|total print only the table sorted by this (default: both tables)
  --out FILE      where to write the .cpuprofile (default: a new directory under the temp dir)
  --interval-us N the sampling interval in microseconds (default 1000)
  --compare FILE  also list the functions whose share of the time grew most since this earlier .cpuprofile
`;

function positiveInteger(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number from 1, got "${text}"`);
  return value;
}

function sortOrder(text: string | undefined): "self" | "total" | undefined {
  if (text === undefined || text === "self" || text === "total") return text;
  throw new Error(`--by must be self or total, got "${text}"`);
}

function main(): number {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      top: { type: "string" },
      by: { type: "string" },
      out: { type: "string" },
      "interval-us": { type: "string" },
      compare: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help || positionals.length === 0) {
    process.stdout.write(usage);
    return values.help ? 0 : 2;
  }
  const top = positiveInteger("top", values.top, 25);
  const intervalUs = positiveInteger("interval-us", values["interval-us"], 1000);
  const by = sortOrder(values.by);
  const output = resolve(
    values.out ?? join(mkdtempSync(join(tmpdir(), "kvol-profile-")), `${positionals.join("+")}.cpuprofile`),
  );
  const here = fileURLToPath(new URL(".", import.meta.url));
  const child = spawnSync(
    process.execPath,
    [
      "--expose-gc",
      "--import",
      "tsx",
      "--import",
      join(here, "cpu-profile-hook.ts"),
      join(here, "run.ts"),
      ...positionals,
    ],
    {
      stdio: "inherit",
      env: { ...process.env, KVOL_PROFILE_FILE: output, KVOL_PROFILE_INTERVAL_US: String(intervalUs) },
    },
  );
  if (child.status !== 0) {
    process.stderr.write(`the benchmark failed (${child.signal ?? `exit status ${child.status}`}); no profile\n`);
    return 1;
  }
  const profile = JSON.parse(readFileSync(output, "utf8")) as CpuProfile;
  const root = resolve(here, "..");
  for (const order of by === undefined ? (["self", "total"] as const) : [by]) {
    const summary = summariseCpuProfile(profile, { top, by: order, root });
    process.stdout.write(`\n${formatProfileSummary(summary, `top ${top} functions by ${order} time`)}`);
  }
  if (values.compare !== undefined) {
    const earlier = JSON.parse(readFileSync(resolve(values.compare), "utf8")) as CpuProfile;
    const all = { top: Number.POSITIVE_INFINITY, by: "self", root } as const;
    const changes = growingShares(summariseCpuProfile(earlier, all), summariseCpuProfile(profile, all), top);
    process.stdout.write(
      `\n${formatShareChanges(changes, `top ${top} functions by growth of self share since ${values.compare}`)}`,
    );
  }
  process.stdout.write(`\nprofile: ${output}\n`);
  return 0;
}

try {
  process.exitCode = main();
} catch (error) {
  process.stderr.write(`npm run profile: ${(error as Error).message}\n\n${usage}`);
  process.exitCode = 2;
}
