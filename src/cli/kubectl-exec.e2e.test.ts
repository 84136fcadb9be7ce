/**
 * `kubectl logs`, `logs -f`, `exec` (its output, its exit code, its stdin) and `attach` through the API server
 * to the kubelet of a node joined as its own process: a real node (`kvol up --host linux`, a
 * busybox container with an emptyDir at /data) and a simulated one (`kvol node` joining `kvol
 * server`, where exec runs the simulated command). kubectl 1.30 and newer speak WebSockets
 * (v5.channel.k8s.io); kubectl 1.29 with KUBECTL_REMOTE_COMMAND_WEBSOCKETS=true speaks v4.
 * Runs under CI=true or with KVOL_E2E=1; the real node needs root (skipped with the reason
 * elsewhere, except under CI=true).
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { probeLinuxRuntime } from "../cri/linux/runtime-requirements.ts";
import { requireOrSkip } from "../host/linux/private-mount-namespace.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { DataDir } from "./embedded/data-dir.ts";
import { KvolProcess, startedCluster } from "./testing/kvol-process.ts";
import { type CommandRun, runCommand } from "./testing/run-command.ts";
import { waitFor } from "./testing/wait-for.ts";

const startTimeoutMs = 60_000;
const podTimeoutMs = 90_000;
const commandTimeoutMs = 60_000;
const underCi = process.env.CI === "true";
const kubectlPath = spawnSync("sh", ["-c", "command -v kubectl"], { encoding: "utf8" }).stdout.trim();

function skipReasonOf(): string | undefined {
  if (!underCi && process.env.KVOL_E2E !== "1") return "starts clusters with real nodes; set KVOL_E2E=1 to run it";
  if (kubectlPath === "" && !underCi) return "no kubectl on the PATH (install kubernetes-client)";
  return undefined;
}

function kubectlFor(kubeconfig: string) {
  return (
    args: readonly string[],
    input?: string,
    binary = "kubectl",
    env: NodeJS.ProcessEnv = {},
  ): Promise<CommandRun> =>
    runCommand(binary, args, { ...process.env, ...env, KUBECONFIG: kubeconfig }, commandTimeoutMs, input);
}

/** A kubectl that streams (`logs -f`, `attach`) until `count` lines came, then stopped as a user stops it (Ctrl-C). */
function streamedLines(kubeconfig: string, args: readonly string[], count: number): Promise<string[]> {
  const clock = new RealClock();
  return new Promise((resolve, reject) => {
    const child = spawn("kubectl", args, { env: { ...process.env, KUBECONFIG: kubeconfig } });
    let text = "";
    const timer = clock.setTimer(commandTimeoutMs, () => {
      child.kill("SIGKILL");
      reject(new Error(`kubectl ${args.join(" ")} printed ${JSON.stringify(text)} and no more`));
    });
    child.stdout.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const lines = text.split("\n").filter((line) => line !== "");
      if (lines.length >= count) {
        timer.cancel();
        child.kill("SIGINT");
        resolve(lines.slice(0, count));
      }
    });
  });
}

const realPod = `apiVersion: v1
kind: Pod
metadata: {name: box}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "echo hello > /data/greeting; i=0; while true; do echo line $i; i=$((i+1)); sleep 1; done"]
    volumeMounts: [{name: data, mountPath: /data}]
  volumes: [{name: data, emptyDir: {}}]
`;

describe("kubectl logs and exec on a real node", { skip: skipReasonOf() ?? false }, () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-exec-linux-"));
  let up: KvolProcess | undefined;
  after(async () => {
    await up?.stop("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("logs, logs -f, attach, exec ls /data, exit 3, and stdin through cat, with a busybox container", async (t) => {
    const probe = await probeLinuxRuntime();
    if (!requireOrSkip(t, "problems" in probe ? probe.problems.join("; ") : undefined)) return;
    up = new KvolProcess(["up", "--host", "linux", "--nodes", "1", "--port", "0", "--data-dir", dir]);
    const { kubeconfigPath } = await startedCluster(up, startTimeoutMs);
    await up.waitForOutput(/Ready: 1 real node\(s\) on this machine/, startTimeoutMs);
    const kubectl = kubectlFor(kubeconfigPath);
    const applied = await kubectl(["apply", "-f", "-"], realPod);
    assert.equal(applied.status, 0, applied.stderr);
    await waitFor(
      "pod box Running with two lines logged",
      async () => {
        const logs = await kubectl(["logs", "box"]);
        return logs.status === 0 && /^line 1$/m.test(logs.stdout) ? logs : undefined;
      },
      podTimeoutMs,
    );
    const logs = await kubectl(["logs", "box"]);
    assert.match(logs.stdout, /^line 0\nline 1\n/);
    const stamped = await kubectl(["logs", "box", "--timestamps", "--tail=1"]);
    assert.match(stamped.stdout, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z line \d+\n$/);

    const followed = await streamedLines(kubeconfigPath, ["logs", "-f", "box", "--tail=1"], 3);
    const numbers = followed.map((line) => Number(/^line (\d+)$/.exec(line)?.[1]));
    assert.deepEqual(numbers, [numbers[0], (numbers[0] ?? 0) + 1, (numbers[0] ?? 0) + 2], followed.join("\n"));

    const attached = await streamedLines(kubeconfigPath, ["attach", "box"], 2);
    assert.match(attached.join("\n"), /^line \d+\nline \d+$/, "attach shows what the container prints from now on");

    const ls = await kubectl(["exec", "box", "--", "ls", "/data"]);
    assert.deepEqual([ls.status, ls.stdout], [0, "greeting\n"], ls.stderr);
    const cat = await kubectl(["exec", "box", "--", "cat", "/data/greeting"]);
    assert.equal(cat.stdout, "hello\n");
    const hostname = await kubectl(["exec", "box", "--", "hostname"]);
    assert.equal(hostname.stdout, "box\n", "the command runs in the container's UTS namespace");
    const pid1 = await kubectl(["exec", "box", "--", "cat", "/proc/1/cmdline"]);
    assert.match(pid1.stdout, /^sh\0-c\0/, "and in its PID namespace: PID 1 is the container's command");

    const exit3 = await kubectl(["exec", "box", "--", "sh", "-c", "exit 3"]);
    assert.equal(exit3.status, 3);
    assert.match(exit3.stderr, /command terminated with exit code 3/);
    const stderr = await kubectl(["exec", "box", "--", "ls", "/nowhere"]);
    assert.equal(stderr.status, 1);
    assert.match(stderr.stderr, /ls: \/nowhere: No such file or directory/);

    const echoed = await kubectl(["exec", "-i", "box", "--", "cat"], "typed into stdin\nand a second line\n");
    assert.deepEqual([echoed.status, echoed.stdout], [0, "typed into stdin\nand a second line\n"], echoed.stderr);

    const kubectl129 = join(dirname(realpathSync(kubectlPath || "/usr/bin/kubectl")), "kubectl.1.29");
    if (existsSync(kubectl129)) {
      const v4 = await kubectl(["exec", "box", "--", "sh", "-c", "ls /data; exit 4"], undefined, kubectl129, {
        KUBECTL_REMOTE_COMMAND_WEBSOCKETS: "true",
      });
      assert.deepEqual([v4.status, v4.stdout], [4, "greeting\n"], v4.stderr);
      const spdy = await kubectl(["exec", "box", "--", "ls"], undefined, kubectl129);
      assert.notEqual(spdy.status, 0);
      assert.match(spdy.stderr, /not SPDY: use kubectl 1\.30 or newer/);
    }

    const wrong = await kubectl(["exec", "box", "-c", "nope", "--", "ls"]);
    assert.notEqual(wrong.status, 0);
    assert.match(wrong.stderr, /container nope is not valid for pod box/);
  });
});

const simPod = `apiVersion: v1
kind: Pod
metadata: {name: sim}
spec:
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "echo started; exec httpd -f -p 8080"]
    volumeMounts: [{name: data, mountPath: /data}]
  volumes: [{name: data, emptyDir: {}}]
`;

describe("kubectl logs and exec on a simulated node joined with kvol node", { skip: skipReasonOf() ?? false }, () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-exec-sim-"));
  const processes: KvolProcess[] = [];
  after(async () => {
    for (const kvol of processes.reverse()) await kvol.stop("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves its container's log and runs the simulated command, with its exit code", async () => {
    const nodeName = `sim-${process.pid}`;
    const server = new KvolProcess(["server", "--port", "0", "--data-dir", dir, "--node-tokens", nodeName]);
    processes.push(server);
    const { url, caFile, kubeconfigPath } = await startedCluster(server, startTimeoutMs);
    const tokenFile = new DataDir(dir).nodeTokenFile(nodeName);
    const node = new KvolProcess([
      ...["node", "--server", url, "--certificate-authority", caFile],
      ...["--name", nodeName, "--token-file", tokenFile],
    ]);
    processes.push(node);
    await node.waitForOutput(new RegExp(`node ${nodeName} is running`), startTimeoutMs);
    const kubectl = kubectlFor(kubeconfigPath);
    const port = await kubectl([
      "get",
      "node",
      nodeName,
      "-o",
      "jsonpath={.status.daemonEndpoints.kubeletEndpoint.Port}",
    ]);
    assert.match(port.stdout, /^[1-9]\d*$/, "the node reports its kubelet's port");
    assert.equal((await kubectl(["apply", "-f", "-"], simPod)).status, 0);
    const logs = await waitFor(
      "pod sim's log",
      async () => {
        const run = await kubectl(["logs", "sim"]);
        return run.status === 0 && run.stdout !== "" ? run : undefined;
      },
      podTimeoutMs,
    );
    assert.equal(logs.stdout, "started\n");
    const ls = await kubectl(["exec", "sim", "--", "ls", "/data"]);
    assert.deepEqual([ls.status, ls.stdout], [0, ""], ls.stderr);
    const missing = await kubectl(["exec", "sim", "--", "cat", "/data/missing"]);
    assert.equal(missing.status, 1);
    assert.match(missing.stdout, /cat: \/data\/missing: No such file or directory/);
  });
});
