/**
 * A busy mount on a real node, as in the incidents where a pod stays Terminating for days: a
 * process on the node (not in the pod) has its working directory inside the pod's Memory emptyDir,
 * a real tmpfs. The pod is deleted; the kernel refuses the kubelet's umount with "target is busy",
 * and the kubelet retries with its exponential backoff (500 ms, 1 s, 2 s, … up to 2m2s) while the
 * pod stays Terminating; `kvol why` names the holding process (pid and command line). Once the
 * holder goes, the next retry unmounts and the pod is gone.
 * Needs root and the Linux runtime's tools (skipped with the reason elsewhere, except under CI=true).
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { probeLinuxRuntime } from "../cri/linux/runtime-requirements.ts";
import { requireOrSkip } from "../host/linux/private-mount-namespace.ts";
import { mountsUnder } from "../host/linux/scratch-dir.ts";
import { DataDir } from "./embedded/data-dir.ts";
import { KvolProcess, startedCluster } from "./testing/kvol-process.ts";
import { startRealNode } from "./testing/real-node.ts";
import { runCommand } from "./testing/run-command.ts";
import { waitFor } from "./testing/wait-for.ts";

const startTimeoutMs = 60_000;
const waitMs = 60_000;
/** Unique on the machine: the node's cgroup is named after it, and other test runs may run nodes too. */
const nodeName = `busy-${process.pid}`;
const kvolBin = fileURLToPath(new URL("../../bin/kvol.js", import.meta.url));

describe("a busy mount on a real node", () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-busy-mount-"));
  const processes: KvolProcess[] = [];
  let holder: ChildProcess | undefined;
  after(async () => {
    holder?.kill("SIGKILL");
    for (const kvol of processes.reverse()) await kvol.stop("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("umount fails with 'target is busy', the kubelet backs off 500ms, 1s, 2s, and the pod goes once the holder lets go", async (t) => {
    const probe = await probeLinuxRuntime();
    if (!requireOrSkip(t, "problems" in probe ? probe.problems.join("; ") : undefined) || "problems" in probe) return;
    const server = new KvolProcess(["server", "--port", "0", "--data-dir", dir, "--node-tokens", nodeName]);
    processes.push(server);
    const cluster = await startedCluster(server, startTimeoutMs);
    const { url, kubeconfigPath, fetch } = cluster;
    const data = new DataDir(dir);
    const extraArgs = ["--csi-node-plugins", "none"];
    const node = await startRealNode({
      cluster,
      dataDir: dir,
      nodeName,
      extraArgs,
      timeoutMs: startTimeoutMs,
      processes,
    });
    const headers = { Authorization: `Bearer ${data.ensureAdminToken()}`, "Content-Type": "application/json" };
    const podUrl = `${url}/api/v1/namespaces/default/pods/busy`;
    const created = await fetch(`${url}/api/v1/namespaces/default/pods`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "busy" },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: "main",
              image: "busybox",
              command: ["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"],
              volumeMounts: [{ name: "scratch", mountPath: "/scratch" }],
            },
          ],
          volumes: [{ name: "scratch", emptyDir: { medium: "Memory" } }],
        },
      }),
    });
    assert.equal(created.status, 201, await created.text());
    const pod = await waitFor(
      "pod busy Running",
      async () => {
        const current = (await (await fetch(podUrl, { headers })).json()) as {
          metadata: { uid: string };
          status?: { phase?: string };
        };
        return current.status?.phase === "Running" ? current : undefined;
      },
      waitMs,
    );
    const nodeDir = join(dir, "nodes", nodeName);
    const volumeDir = join(nodeDir, "kubelet/pods", pod.metadata.uid, "volumes/kubernetes.io~empty-dir/scratch");
    const agentPid = readFileSync(join(nodeDir, "agent.pid"), "utf8").trim();
    const nodeMounts = () => readFileSync(`/proc/${agentPid}/mountinfo`, "utf8");
    assert.match(nodeMounts(), new RegExp(`${volumeDir} .* - tmpfs `), "the Memory emptyDir is a tmpfs in the node");

    // A process of the node (a shell someone left there) holds the mount.
    holder = spawn("nsenter", ["-t", agentPid, "-m", "--", "sh", "-c", `cd '${volumeDir}' && exec sleep 600`], {
      stdio: "ignore",
    });
    await waitFor("the holder inside the mount", () => (holder?.pid === undefined ? undefined : true), waitMs);
    const deleted = await fetch(podUrl, { method: "DELETE", headers });
    assert.equal(deleted.status, 200, await deleted.text());

    const failure = (backoff: string) =>
      new RegExp(
        `No retries permitted until .*\\(durationBeforeRetry ${backoff}\\)\\. Error: UnmountVolume\\.TearDown failed for volume .*scratch.*target is busy`,
      );
    for (const backoff of ["500ms", "1s", "2s"]) {
      await waitFor(
        `a failed unmount backing off ${backoff}`,
        () => failure(backoff).test(node.stderr) || undefined,
        waitMs,
      );
    }
    const terminating = (await (await fetch(podUrl, { headers })).json()) as {
      metadata: { deletionTimestamp?: string };
    };
    assert.ok(terminating.metadata.deletionTimestamp, "the pod is still there, Terminating");
    assert.match(nodeMounts(), new RegExp(`${volumeDir} `), "the mount is still there");

    const why = await runCommand(
      process.execPath,
      [kvolBin, "why", "pod/busy"],
      { PATH: process.env.PATH ?? "", HOME: dir, KUBECONFIG: kubeconfigPath },
      waitMs,
    );
    assert.equal(why.status, 0, why.stderr);
    assert.match(why.stdout, /volume "scratch": teardown failing: unmount failed: target is busy/, why.stdout);
    assert.match(
      why.stdout,
      new RegExp(`mount ${volumeDir}: held by (.*, )?pid ${holder.pid} \\(sleep 600\\)`),
      why.stdout,
    );

    holder.kill("SIGKILL");
    await waitFor("pod busy gone", async () => (await fetch(podUrl, { headers })).status === 404 || undefined, waitMs);
    assert.doesNotMatch(nodeMounts(), new RegExp(`${volumeDir} `), "unmounted once the holder let go");

    assert.equal(await node.stop("SIGTERM"), 0, node.stderr.slice(-2000));
    assert.deepEqual(await mountsUnder(dir), [], "no mount left");
  });
});
