/**
 * The live cluster as a rehearsal tool (issue 21), end to end against `kvol up --speed 60`:
 *
 * - every client command finds its cluster through `--kubeconfig` and `--context`, and `kvol
 *   fault` works with nothing but KUBECONFIG set, as `kvol up` tells a user to set it;
 * - seed 004 (the sock-shop user database on a ReadWriteOnce volume whose node is powered off)
 *   plays out on the real kubectl within 30 s of wall time: NodeNotReady, the taint manager's
 *   eviction and the Multi-Attach error; `kvol why` on the replacement pod names the dead node and
 *   the out-of-service taint; after the old pod is deleted by force,
 *   the replacement pod runs on another node.
 *
 * Runs with KVOL_E2E=1 or under CI=true (about a minute); without kubectl it is skipped with a
 * reason, except under CI=true, where a missing kubectl fails it.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parse, stringify } from "yaml";
import { RealClock } from "../runtime/real-clock.ts";
import { suiteSkip } from "../testing/requirements.ts";
import { runApplyCommand } from "./apply-command.ts";
import type { ClientIo } from "./client/client-io.ts";
import { capturedIo } from "./client/testing/cli-test-support.ts";
import { runDeleteCommand } from "./delete-command.ts";
import { runDescribeCommand } from "./describe-command.ts";
import { runFaultCommand } from "./fault-command.ts";
import { runGetCommand } from "./get-command.ts";
import { runSpeedCommand } from "./speed-command.ts";
import { KvolProcess, startedCluster } from "./testing/kvol-process.ts";
import { type CommandRun as Run, runCommand } from "./testing/run-command.ts";
import { waitFor } from "./testing/wait-for.ts";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const kvolBin = join(repoRoot, "bin", "kvol.js");
const seedManifests = [
  join(repoRoot, "examples", "00-storage-classes.yaml"),
  join(repoRoot, "examples", "004-sock-shop-user-db.yaml"),
];
const startTimeoutMs = 30_000;
/** The promise: at 60×, the incident shows within 30 s of wall time. */
const incidentWallTimeoutMs = 30_000;
const clock = new RealClock();

/** Runs a program with exactly `env` (plus PATH), so no KUBECONFIG or HOME of the machine leaks in. */
function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<Run> {
  return runCommand(command, args, env, timeoutMs);
}

function succeeded(result: Run, what: string): string {
  assert.equal(result.status, 0, `${what} failed:\n${result.stderr}\n${result.stdout}`);
  return result.stdout;
}

const underCi = process.env.CI === "true";
const hasKubectl = spawnSync("sh", ["-c", "command -v kubectl"]).status === 0;

function skipReasonOf(): string | undefined {
  if (!underCi && process.env.KVOL_E2E !== "1") return "takes about a minute; set KVOL_E2E=1 to run it";
  if (!hasKubectl && !underCi) return "no kubectl on the PATH (install kubernetes-client)";
  return undefined;
}

describe("the live incident of seed 004 at --speed 60", {
  skip: suiteSkip("the live incident of seed 004", skipReasonOf()),
}, () => {
  let dir: string;
  let kvol: KvolProcess;
  let kubeconfig: string;
  /** A user's environment with nothing but KUBECONFIG: HOME has no ~/.kube/config and no ~/.kvol. */
  let userEnv: NodeJS.ProcessEnv;

  before(async () => {
    assert.ok(hasKubectl, "CI=true requires kubectl on the PATH for the end-to-end test");
    dir = mkdtempSync(join(tmpdir(), "kvol-live-incident-"));
    kvol = new KvolProcess(["up", "--port", "0", "--nodes", "2", "--speed", "60", "--data-dir", join(dir, "data")]);
    kubeconfig = (await startedCluster(kvol, startTimeoutMs)).kubeconfigPath;
    await kvol.waitForOutput(/Ready: 2 node\(s\)/, startTimeoutMs);
    assert.match(kvol.stdout, /^speed: 60× — the cluster's clock runs 60 times faster than the wall clock/m);
    userEnv = { HOME: join(dir, "home"), KUBECONFIG: kubeconfig };
  });
  after(async () => {
    await kvol?.stop("SIGKILL");
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("every client command takes --kubeconfig and --context over a KUBECONFIG that names another cluster", async () => {
    // The current context points at a port nothing listens on; only --context kvol reaches the cluster.
    const config = parse(readFileSync(kubeconfig, "utf8"));
    config.clusters.push({ name: "elsewhere", cluster: { server: "https://127.0.0.1:1" } });
    config.contexts.push({ name: "elsewhere", context: { cluster: "elsewhere", user: config.users[0].name } });
    config["current-context"] = "elsewhere";
    const twoContexts = join(dir, "two-contexts");
    writeFileSync(twoContexts, stringify(config));
    const manifest = join(dir, "configmap.yaml");
    writeFileSync(manifest, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags}\ndata: {a: b}\n");
    // KUBECONFIG names a file that does not exist: only the flags can find the cluster.
    const env = { HOME: join(dir, "home"), KUBECONFIG: join(dir, "no-such-kubeconfig") };
    const flags = ["--kubeconfig", twoContexts, "--context", "kvol"];
    const commands: [string, (argv: readonly string[], io: ClientIo) => Promise<number>, string[], RegExp][] = [
      ["get", runGetCommand, ["nodes"], /^node-1\s+Ready/m],
      ["describe", runDescribeCommand, ["node", "node-1"], /^Name:\s+node-1$/m],
      ["apply", runApplyCommand, ["-f", manifest], /^configmap\/flags created$/m],
      ["delete", runDeleteCommand, ["configmap", "flags"], /^configmap "flags" deleted$/m],
      ["fault", runFaultCommand, ["kubelet-restart", "node-2"], /^fault kubelet-restart injected$/m],
      ["speed", runSpeedCommand, [], /^speed: 60×$/m],
    ];
    for (const [name, command, args, expected] of commands) {
      const io = capturedIo(env, clock);
      assert.equal(await command([...args, ...flags], io), 0, `kvol ${name}: ${io.stderr}`);
      assert.match(io.stdout, expected, `kvol ${name}`);
      const withoutContext = capturedIo(env, clock);
      assert.equal(await command([...args, "--kubeconfig", twoContexts], withoutContext), 1, `kvol ${name}`);
      assert.match(withoutContext.stderr, /cannot reach the API server at https:\/\/127\.0\.0\.1:1/, `kvol ${name}`);
    }
  });

  it("shows NodeNotReady, the eviction and the Multi-Attach error within 30 s, then the pod runs elsewhere", async () => {
    succeeded(
      await run("kubectl", ["apply", ...seedManifests.flatMap((file) => ["-f", file])], userEnv),
      "kubectl apply",
    );
    const first = await waitFor(
      "user-db Running",
      async () => {
        const pods = await run("kubectl", ["get", "pods", "-n", "sock-shop", "--no-headers", "-o", "wide"], userEnv);
        const [name, , status, , , , node] = pods.stdout.trim().split(/\s+/);
        return status === "Running" && node !== undefined ? { name: name ?? "", node } : undefined;
      },
      60_000,
    );

    // Only KUBECONFIG set: the command finds the cluster and its credentials there.
    const injected = await run(process.execPath, [kvolBin, "fault", "node-power-off", first.node], userEnv);
    assert.equal(succeeded(injected, "kvol fault"), "fault node-power-off injected\n");

    const events = await waitFor(
      "NodeNotReady, TaintManagerEviction and Multi-Attach events",
      async () => {
        const listed = (await run("kubectl", ["get", "events", "-n", "sock-shop"], userEnv)).stdout;
        const all = ["NodeNotReady", "TaintManagerEviction", "Multi-Attach error for volume"];
        return all.every((text) => listed.includes(text)) ? listed : undefined;
      },
      incidentWallTimeoutMs,
    );
    assert.match(events, /Warning\s+NodeNotReady\s+pod\/user-db-\S+\s+Node is not ready/);
    assert.match(
      events,
      /Normal\s+TaintManagerEviction\s+pod\/user-db-\S+\s+Marking for deletion Pod sock-shop\/user-db-/,
    );
    assert.match(
      events,
      new RegExp(
        `Warning\\s+FailedAttachVolume\\s+pod/user-db-\\S+\\s+Multi-Attach error for volume "pvc-\\S+" Volume is already used by pod\\(s\\) ${first.name}`,
      ),
    );

    // kvol describe counts ages on the cluster's clock, ahead of the wall clock at 60×: no <invalid>.
    const described = capturedIo(userEnv, clock);
    assert.equal(await runDescribeCommand(["pod", "-n", "sock-shop", first.name], described), 0, described.stderr);
    assert.match(described.stdout, /Warning\s+NodeNotReady\s+\d+m?\d*s?\s+node-controller\s+Node is not ready/);
    // (Status may read `Terminating (lasts <invalid>)` while the grace period runs, as kubectl prints it.)
    assert.doesNotMatch(described.stdout.slice(described.stdout.indexOf("Events:")), /<invalid>/);

    // kvol why on the replacement pod walks the chain down to the dead node and names the way out.
    const why = await waitFor(
      "kvol why to reach the dead node",
      async () => {
        const pods = await run("kubectl", ["get", "pods", "-n", "sock-shop", "--no-headers"], userEnv);
        const waiting = pods.stdout
          .trim()
          .split("\n")
          .map((line) => line.trim().split(/\s+/)[0] ?? "")
          .find((name) => name.startsWith("user-db-") && name !== first.name);
        if (waiting === undefined) return undefined;
        const text = (await run(process.execPath, [kvolBin, "why", `pod/${waiting}`, "-n", "sock-shop"], userEnv))
          .stdout;
        return text.includes("node.kubernetes.io/out-of-service") ? text : undefined;
      },
      incidentWallTimeoutMs,
    );
    assert.ok(why.includes(`Multi-Attach, the volume is attached to node ${first.node}`), why);
    assert.ok(why.includes(`Terminating on node ${first.node}, still holding the volume`), why);
    assert.ok(
      why.includes(`kubectl taint nodes ${first.node} node.kubernetes.io/out-of-service=nodeshutdown:NoExecute`),
      why,
    );

    // The way out: the old pod, stuck Terminating on the dead node, is deleted by force.
    succeeded(
      await run("kubectl", ["delete", "pod", first.name, "-n", "sock-shop", "--force", "--grace-period=0"], userEnv),
      "kubectl delete --force",
    );
    const replacement = await waitFor(
      "the replacement pod Running on another node",
      async () => {
        const pods = await run("kubectl", ["get", "pods", "-n", "sock-shop", "--no-headers", "-o", "wide"], userEnv);
        return pods.stdout
          .trim()
          .split("\n")
          .map((line) => line.trim().split(/\s+/))
          .find(([name, , status, , , , node]) => name !== first.name && status === "Running" && node !== first.node);
      },
      incidentWallTimeoutMs,
    );
    assert.ok(replacement[0]?.startsWith("user-db-"), replacement.join(" "));
  });
});
