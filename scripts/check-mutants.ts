/**
 * Mutation check: applies each known mutation of the code to a temporary copy of the tree, runs the
 * test files listed for it one by one, and requires every one of them to fail. A mutation whose tests
 * still pass means those tests can be fooled; a mutation whose text is no longer in its file means
 * the list must be updated. The working tree is never modified.
 *
 * Usage: npm run check:mutants [-- NAME...]   (no names: every mutation)
 */
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

interface Mutation {
  name: string;
  file: string;
  /** Exact text, found exactly once in the file. */
  find: string;
  replace: string;
  /** Each of these test files must fail on its own when the mutation is applied. */
  tests: string[];
}

const mutations: readonly Mutation[] = [
  {
    name: "watch-reset-instead-of-end",
    file: "src/apiserver/watch-stream.ts",
    find: "    response.end();",
    replace: "    response.destroy();",
    tests: ["src/apiserver/watch-stream.test.ts"],
  },
  {
    name: "node-monitor-grace-period-60s",
    file: "src/api/timers.ts",
    find: "nodeMonitorGracePeriodMs: 40_000,",
    replace: "nodeMonitorGracePeriodMs: 60_000,",
    tests: ["src/controllers/nodelifecycle/node-lifecycle-controller.test.ts", "src/api/timers-kubernetes.test.ts"],
  },
  {
    name: "force-detach-after-7-minutes",
    file: "src/api/timers.ts",
    find: "adcMaxWaitForUnmountMs: 6 * 60_000,",
    replace: "adcMaxWaitForUnmountMs: 7 * 60_000,",
    tests: ["src/controllers/attachdetach/force-detach.test.ts", "src/api/timers-kubernetes.test.ts"],
  },
  {
    name: "backoff-cap-3-minutes",
    file: "src/runtime/backoff.ts",
    find: "export const maxDurationBeforeRetryMs = 122_000;",
    replace: "export const maxDurationBeforeRetryMs = 180_000;",
    tests: ["src/runtime/backoff.test.ts"],
  },
  {
    name: "multi-attach-check-off",
    file: "src/controllers/attachdetach/reconciler/reconciler.ts",
    find: "if (this.options.multiAttachPolicy.allowsMultiAttach(volume.volumeSpec)) return false;",
    replace: "if (true) return false;",
    tests: ["src/controllers/attachdetach/attach-detach-controller.test.ts"],
  },
  {
    name: "watch-default-timeout-15min",
    file: "src/apiserver/constants.ts",
    find: "export const defaultWatchTimeoutSeconds = 1800;",
    replace: "export const defaultWatchTimeoutSeconds = 900;",
    tests: ["src/apiserver/watch-stream.test.ts"],
  },
  {
    name: "pod-attach-and-mount-timeout-2m",
    file: "src/api/timers.ts",
    find: "podAttachAndMountTimeoutMs: 2 * 60_000 + 3_000,",
    replace: "podAttachAndMountTimeoutMs: 2 * 60_000,",
    tests: ["src/api/timers-kubernetes.test.ts"],
  },
  {
    name: "adc-index-kept-after-detach",
    file: "src/controllers/attachdetach/cache/actual-state-of-world.ts",
    find: "      onNode?.delete(volumeName);\n",
    replace: "",
    tests: ["src/controllers/attachdetach/cache/actual-state-of-world.test.ts"],
  },
  {
    name: "kubelet-forgets-volume-with-mounted-device",
    file: "src/kubelet/volumemanager/cache/actual-state-of-world.ts",
    find: 'volume.deviceMountState === "DeviceNotMounted",',
    replace: "true,",
    tests: ["src/kubelet/volumemanager/cache/actual-state-of-world.test.ts"],
  },
];

const repoRoot = resolve(import.meta.dirname, "..");
/** Top-level entries not copied: the history, and the dependencies (linked instead). */
const notCopied = new Set([".git", "node_modules"]);

let scratch: string | undefined;
function removeScratch(): void {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    removeScratch();
    process.exit(130);
  });
}

function copyTree(): string {
  const dir = mkdtempSync(join(tmpdir(), "kvol-mutants-"));
  cpSync(repoRoot, dir, {
    recursive: true,
    filter: (source) => !notCopied.has(source.slice(repoRoot.length + 1).split("/")[0] ?? ""),
  });
  symlinkSync(join(repoRoot, "node_modules"), join(dir, "node_modules"));
  return dir;
}

/** A mutation may make a test wait forever; each test gets this long before it counts as failed. */
const testTimeoutMs = 60_000;
/** And the whole file this long before it is killed (which also counts as failing). */
const fileTimeoutMs = 180_000;

/** Runs one test file in the copy; resolves with its exit status. */
function runTestFile(tree: string, file: string): Promise<number> {
  // Run outside any enclosing test runner's protocol, as a top-level test run.
  const { NODE_TEST_CONTEXT: _enclosingRunner, ...env } = process.env;
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--test", "--test-reporter=dot", `--test-timeout=${testTimeoutMs}`, file],
      {
        cwd: tree,
        stdio: "ignore",
        env,
      },
    );
    const killer = setTimeout(() => child.kill("SIGKILL"), fileTimeoutMs);
    child.on("error", fail);
    child.on("exit", (code, signal) => {
      clearTimeout(killer);
      done(signal === null ? (code ?? 1) : 1);
    });
  });
}

async function check(tree: string, mutation: Mutation): Promise<string[]> {
  const path = join(tree, mutation.file);
  const original = readFileSync(path, "utf8");
  const occurrences = original.split(mutation.find).length - 1;
  if (occurrences !== 1) {
    return [`${mutation.name}: "${mutation.find}" occurs ${occurrences} times in ${mutation.file}, expected once`];
  }
  writeFileSync(path, original.replace(mutation.find, mutation.replace));
  const problems: string[] = [];
  try {
    for (const test of mutation.tests) {
      const startedAt = performance.now();
      const status = await runTestFile(tree, test);
      const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
      console.log(`  ${status === 0 ? "SURVIVED" : "killed  "} ${mutation.name} by ${test} (${seconds} s)`);
      if (status === 0) problems.push(`${mutation.name}: ${test} still passes with ${mutation.file} mutated`);
    }
  } finally {
    writeFileSync(path, original);
  }
  return problems;
}

async function main(): Promise<number> {
  const names = process.argv.slice(2);
  const unknown = names.filter((name) => !mutations.some((m) => m.name === name));
  if (unknown.length > 0) {
    console.error(`unknown mutation(s): ${unknown.join(", ")}; known: ${mutations.map((m) => m.name).join(", ")}`);
    return 2;
  }
  const chosen = names.length === 0 ? mutations : mutations.filter((m) => names.includes(m.name));
  scratch = copyTree();
  const problems: string[] = [];
  try {
    for (const mutation of chosen) problems.push(...(await check(scratch, mutation)));
  } finally {
    removeScratch();
  }
  for (const problem of problems) console.error(problem);
  console.log(`${chosen.length} mutation(s), ${problems.length} problem(s)`);
  return problems.length === 0 ? 0 : 1;
}

process.exitCode = await main();
