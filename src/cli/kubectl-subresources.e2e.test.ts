/**
 * The real kubectl against `kvol up` for the subresources and kinds a kubectl user touches:
 * `scale statefulset`, `logs`, `auth can-i`, `auth whoami`, `rollout history` and `undo`,
 * `cluster-info`, `create job|serviceaccount|token`, `exec` (a readable refusal) and an unknown
 * kind. It takes under a minute of real time, so it runs only with KVOL_E2E=1 or under CI=true;
 * without kubectl on the PATH it skips with a reason, except under CI=true, where it fails.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { KvolProcess } from "./testing/kvol-process.ts";
import { type CommandRun as Run, runCommand } from "./testing/run-command.ts";
import { waitFor } from "./testing/wait-for.ts";

const startTimeoutMs = 30_000;
const podTimeoutMs = 60_000;
const underCi = process.env.CI === "true";
const kubectlFound = spawnSync("sh", ["-c", "command -v kubectl"], { encoding: "utf8" }).status === 0;

function skipReasonOf(): string | undefined {
  if (!underCi && process.env.KVOL_E2E !== "1") return "takes under a minute; set KVOL_E2E=1 to run it";
  if (!kubectlFound && !underCi) return "no kubectl on the PATH (install kubernetes-client)";
  return undefined;
}

const webSet = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  replicas: 1
  serviceName: web
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
`;

const widget = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
`;

describe("kubectl subresources and kinds against kvol up", { skip: skipReasonOf() ?? false }, () => {
  let dataDir: string;
  let kvol: KvolProcess;
  let kubeconfig: string;

  function kubectl(args: readonly string[], timeoutMs = 30_000): Promise<Run> {
    return runCommand("kubectl", args, { ...process.env, KUBECONFIG: kubeconfig }, timeoutMs);
  }

  async function succeeds(args: readonly string[]): Promise<string> {
    const run = await kubectl(args);
    assert.equal(run.status, 0, `kubectl ${args.join(" ")} failed:\n${run.stderr}\n${run.stdout}`);
    return run.stdout;
  }

  async function jsonPath(args: readonly string[], path: string): Promise<string> {
    return (await kubectl([...args, "-o", `jsonpath=${path}`])).stdout;
  }

  before(async () => {
    assert.ok(kubectlFound, "CI=true requires kubectl on the PATH for the end-to-end test");
    dataDir = mkdtempSync(join(tmpdir(), "kvol-subresources-e2e-"));
    kvol = new KvolProcess(["up", "--port", "0", "--data-dir", join(dataDir, "data")]);
    await kvol.waitForOutput(/Ready: \d+ node/, startTimeoutMs);
    kubeconfig = (await kvol.waitForOutput(/^kubeconfig: (.+)$/m, startTimeoutMs))[1] ?? "";
    writeFileSync(join(dataDir, "web.yaml"), webSet);
    writeFileSync(join(dataDir, "widget.yaml"), widget);
  });

  after(async () => {
    await kvol?.stop("SIGINT");
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers auth can-i, auth whoami and cluster-info", async () => {
    assert.equal((await succeeds(["auth", "can-i", "create", "pods"])).trim(), "yes");
    const whoami = await succeeds(["auth", "whoami"]);
    assert.match(whoami, /^Username\s+kvol-admin$/m);
    assert.match(whoami, /system:masters/);
    assert.match(
      await succeeds(["cluster-info"]),
      /Kubernetes control plane.* is running at .*https:\/\/127\.0\.0\.1:\d+/,
    );
    assert.match(
      await succeeds(["get", "service", "kubernetes"]),
      /^kubernetes\s+ClusterIP\s+10\.96\.0\.1\s+<none>\s+443\/TCP\s+/m,
    );
  });

  it("creates a job whose pod's output kubectl logs shows, and a service account with a working token", async () => {
    await succeeds(["create", "job", "hello", "--image=busybox", "--", "echo", "hello from the job"]);
    await waitFor(
      "job hello to complete",
      async () => (await jsonPath(["get", "job", "hello"], "{.status.succeeded}")) === "1",
      podTimeoutMs,
    );
    assert.match(await succeeds(["get", "jobs"]), /^hello\s+Complete\s+1\/1\s+/m);
    assert.equal(await succeeds(["logs", "job/hello"]), "hello from the job\n");
    await succeeds(["create", "serviceaccount", "backup"]);
    assert.match(await succeeds(["get", "serviceaccounts"]), /^backup\s+0\s+/m);
    const token = (await succeeds(["create", "token", "backup"])).trim();
    assert.match(await succeeds(["--token", token, "auth", "whoami"]), /system:serviceaccount:default:backup/);
  });

  it("scales a StatefulSet, shows its logs and its rollout history, and rolls it back", async () => {
    await succeeds(["apply", "-f", join(dataDir, "web.yaml")]);
    await waitFor(
      "web-0 to run",
      async () => (await jsonPath(["get", "pod", "web-0"], "{.status.phase}")) === "Running",
      podTimeoutMs,
    );
    assert.match(await succeeds(["scale", "statefulset", "web", "--replicas=2"]), /statefulset\.apps\/web scaled/);
    assert.equal(await jsonPath(["get", "statefulset", "web"], "{.spec.replicas}"), "2");
    assert.match(await succeeds(["logs", "web-0"]), /kvol: simulated container "nginx" started from image nginx:1\.25/);
    const previous = await kubectl(["logs", "web-0", "--previous"]);
    assert.notEqual(previous.status, 0);
    assert.match(previous.stderr, /previous terminated container "nginx" in pod "web-0" not found/);
    await succeeds(["set", "image", "statefulset/web", "nginx=nginx:1.26"]);
    await waitFor(
      "revision 2",
      async () => /^2\s+<none>$/m.test(await succeeds(["rollout", "history", "statefulset/web"])),
      podTimeoutMs,
    );
    assert.match(await succeeds(["rollout", "undo", "statefulset/web"]), /rolled back/);
    await waitFor(
      "the old template back",
      async () =>
        (await jsonPath(["get", "statefulset", "web"], "{.spec.template.spec.containers[0].image}")) === "nginx:1.25",
      podTimeoutMs,
    );
    await waitFor(
      "revision 3",
      async () => /^3\s+<none>$/m.test(await succeeds(["rollout", "history", "statefulset/web"])),
      podTimeoutMs,
    );
  });

  it("refuses exec readably and an unknown kind with kubectl's own message", async () => {
    const exec = await kubectl(["exec", "web-0", "--", "ls"]);
    assert.notEqual(exec.status, 0);
    assert.match(
      exec.stderr,
      /kvol cannot run a command in container "nginx" of pod "web-0": the nodes kvol up simulates in its own process run no processes/,
    );
    const unknown = await kubectl(["apply", "-f", join(dataDir, "widget.yaml")]);
    assert.notEqual(unknown.status, 0);
    assert.match(unknown.stderr, /no matches for kind "Widget" in version "example\.com\/v1"/);
  });
});
