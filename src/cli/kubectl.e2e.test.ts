/**
 * The real kubectl against `kvol up`: client-side apply of examples/ (strategic merge patch and
 * the OpenAPI document), `get pods -w` until every pod runs, `describe pod` with its events,
 * `get pv,pvc`, `apply --server-side`, `delete -f examples/`, and a teardown that leaves no pod and
 * no volume. It takes about a minute of real time (pods start, volumes are reclaimed on the PV
 * controller's resync), so it runs only with KVOL_E2E=1 or under CI=true. Skipped with a reason
 * when no kubectl is on the PATH, except under CI=true, where a missing kubectl fails the test.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { RealClock } from "../runtime/real-clock.ts";
import { suiteSkip } from "../testing/requirements.ts";
import { type CommandRun as Run, runCommand } from "./testing/run-command.ts";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const kvolBin = join(repoRoot, "bin", "kvol.js");
const examplesDir = join(repoRoot, "examples");
const clock = new RealClock();

/** Every pod the examples create, by namespace; the Deployments' pods by name prefix. */
const examplePods = [
  "default/web-0",
  "default/web-1",
  "default/busybox1",
  "default/csi-s3-test-nginx",
  "ops-test/node1-nfs-test-",
  "ops-test/node1-nfs-test-",
  "sock-shop/user-db-",
];
const startTimeoutMs = 30_000;
const allRunningTimeoutMs = 120_000;
const teardownTimeoutMs = 120_000;
const pollMs = 500;

function kubectlPath(): string | undefined {
  const found = spawnSync("sh", ["-c", "command -v kubectl"], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

interface Cluster {
  process: ChildProcess;
  kubeconfig: string;
  output(): string;
}

/** Starts `kvol up` and resolves once it has printed its kubeconfig line. */
async function startKvolUp(dataDir: string): Promise<Cluster> {
  const child = spawn(process.execPath, [kvolBin, "up", "--port", "0", "--data-dir", dataDir], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  const deadline = clock.now() + startTimeoutMs;
  while (clock.now() < deadline && !/Ready: \d+ node/.test(output)) {
    if (child.exitCode !== null) break;
    await clock.sleep(100);
  }
  const kubeconfig = /^kubeconfig: (.+)$/m.exec(output)?.[1];
  assert.ok(kubeconfig !== undefined && /Ready: \d+ node/.test(output), `kvol up did not start:\n${output}`);
  return { process: child, kubeconfig, output: () => output };
}

function kubectl(kubeconfig: string, args: readonly string[], timeoutMs = 60_000): Promise<Run> {
  return runCommand("kubectl", args, { ...process.env, KUBECONFIG: kubeconfig }, timeoutMs);
}

function assertSucceeded(run: Run, what: string): void {
  assert.equal(run.status, 0, `${what} failed:\n${run.stderr}\n${run.stdout}`);
}

/** The pods `kubectl get pods -A -w` reports, latest line per pod: namespace/name → STATUS. */
function podStatuses(watchOutput: string): Map<string, string> {
  const statuses = new Map<string, string>();
  for (const line of watchOutput.split("\n")) {
    const [namespace, name, , status] = line.trim().split(/\s+/);
    if (namespace === undefined || name === undefined || status === undefined || namespace === "NAMESPACE") continue;
    statuses.set(`${namespace}/${name}`, status);
  }
  return statuses;
}

/** A name ending in `-` stands for any pod of a Deployment (the rest of the name is generated). */
function podMatches(expected: string, pod: string): boolean {
  return expected.endsWith("-") ? pod.startsWith(expected) : pod === expected;
}

function allExamplePodsRunning(statuses: ReadonlyMap<string, string>): boolean {
  const running = [...statuses].filter(([, status]) => status === "Running").map(([pod]) => pod);
  const unmatched = [...running];
  return examplePods.every((expected) => {
    const index = unmatched.findIndex((pod) => podMatches(expected, pod));
    if (index < 0) return false;
    unmatched.splice(index, 1);
    return true;
  });
}

async function watchUntilAllRunning(kubeconfig: string): Promise<string> {
  const watch = spawn("kubectl", ["get", "pods", "-A", "-w"], {
    env: { ...process.env, KUBECONFIG: kubeconfig },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  watch.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  watch.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  const deadline = clock.now() + allRunningTimeoutMs;
  while (clock.now() < deadline && !allExamplePodsRunning(podStatuses(output)) && watch.exitCode === null) {
    await clock.sleep(pollMs);
  }
  watch.kill("SIGINT");
  return output;
}

async function waitForNothingLeft(kubeconfig: string): Promise<string> {
  const deadline = clock.now() + teardownTimeoutMs;
  let left = "";
  while (clock.now() < deadline) {
    const pods = await kubectl(kubeconfig, ["get", "pods", "-A", "-o", "name"]);
    const volumes = await kubectl(kubeconfig, ["get", "pv", "-o", "name"]);
    left = `${pods.stdout}${volumes.stdout}`;
    if (pods.status === 0 && volumes.status === 0 && left.trim() === "") return "";
    await clock.sleep(pollMs);
  }
  return left;
}

const underCi = process.env.CI === "true";
const kubectlBinary = kubectlPath();

function skipReasonOf(): string | undefined {
  if (!underCi && process.env.KVOL_E2E !== "1") return "takes about a minute; set KVOL_E2E=1 to run it";
  if (kubectlBinary === undefined && !underCi) return "no kubectl on the PATH (install kubernetes-client)";
  return undefined;
}
const skipReason = skipReasonOf();

describe("kubectl against kvol up", { skip: suiteSkip("kubectl against kvol up", skipReason) }, () => {
  let dataDir: string;
  let cluster: Cluster;

  before(async () => {
    assert.ok(kubectlBinary !== undefined, "CI=true requires kubectl on the PATH for the end-to-end test");
    dataDir = mkdtempSync(join(tmpdir(), "kvol-kubectl-e2e-"));
    cluster = await startKvolUp(dataDir);
  });

  after(async () => {
    if (cluster?.process.exitCode === null) {
      cluster.process.kill("SIGINT");
      for (let i = 0; i < 100 && cluster.process.exitCode === null; i++) await clock.sleep(100);
      cluster.process.kill("SIGKILL");
    }
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  it("applies examples/, runs every pod, describes, applies server-side, deletes and tears down", async () => {
    const { kubeconfig } = cluster;
    const applied = await kubectl(kubeconfig, ["apply", "-f", examplesDir]);
    assertSucceeded(applied, "kubectl apply -f examples/");
    assert.match(applied.stdout, /^pod\/busybox1 created$/m);
    assert.match(applied.stdout, /^statefulset\.apps\/web created$/m);

    const watched = await watchUntilAllRunning(kubeconfig);
    assert.ok(allExamplePodsRunning(podStatuses(watched)), `not every pod reached Running:\n${watched}`);
    // What the watch ends on for a one-container pod that started: READY 1/1, Running, no restart.
    assert.match(watched, /^default\s+busybox1\s+1\/1\s+Running\s+0\s+\S+$/m);

    const described = await kubectl(kubeconfig, ["describe", "pod", "busybox1"]);
    assertSucceeded(described, "kubectl describe pod busybox1");
    assert.match(described.stdout, /^Status:\s+Running$/m);
    assert.match(described.stdout, /ClaimName:\s+pvc1/);
    assert.match(described.stdout, /^Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message\n/m);
    assert.match(
      described.stdout,
      /Normal\s+Scheduled\s+.*default-scheduler\s+Successfully assigned default\/busybox1/,
    );

    const storage = await kubectl(kubeconfig, ["get", "pv,pvc", "-A"]);
    assertSucceeded(storage, "kubectl get pv,pvc");
    assert.match(storage.stdout, /^persistentvolume\/pvc-\S+\s+1Gi\s+RWX\s+Delete\s+Bound\s+default\/pvc1\s+shared/m);
    assert.match(storage.stdout, /^sock-shop\s+persistentvolumeclaim\/user-pv\s+Bound\s+pvc-/m);

    const serverSide = await kubectl(kubeconfig, ["apply", "--server-side", "-f", examplesDir]);
    assertSucceeded(serverSide, "kubectl apply --server-side -f examples/");
    assert.match(serverSide.stdout, /^pod\/busybox1 serverside-applied$/m);

    // Two example files start with their Namespace: deleting it lets the namespace controller
    // delete the rest of the file's objects, possibly before kubectl reaches them (a race a real
    // cluster has too), so objects already gone are not an error here.
    const deleted = await kubectl(kubeconfig, ["delete", "-f", examplesDir, "--ignore-not-found"], teardownTimeoutMs);
    assertSucceeded(deleted, "kubectl delete -f examples/");
    assert.match(deleted.stdout, /pod "busybox1" deleted/);
    // A StatefulSet keeps its claims when deleted, as in Kubernetes.
    assertSucceeded(await kubectl(kubeconfig, ["delete", "pvc", "-l", "app=nginx"]), "kubectl delete pvc -l app=nginx");

    const left = await waitForNothingLeft(kubeconfig);
    assert.equal(left, "", `pods or volumes left after teardown:\n${left}`);

    cluster.process.kill("SIGINT");
    for (let i = 0; i < 150 && cluster.process.exitCode === null; i++) await clock.sleep(100);
    assert.equal(cluster.process.exitCode, 0, `kvol up did not stop cleanly:\n${cluster.output()}`);
  });
});
