/**
 * The seeds on real nodes: one `kvol up --host linux --nodes 2` with a real kubectl, real
 * containers, real loop-device disks in DATA/disks and real FUSE mounts, taken through the examples
 * and the incidents of seeds 000, 002, 003 and 004 in order, then stopped with Ctrl-C and checked
 * for leftovers. Needs root, kubectl and the Linux runtime's tools (skipped with the reason
 * elsewhere; under CI=true it must run). Slow on purpose: seed 004 alone waits out the node
 * monitor's 40 s grace period.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { nodeCgroupDir } from "../cmd/linux-node-agent.ts";
import { probeLinuxRuntime } from "../cri/linux/runtime-requirements.ts";
import { cgroupPids } from "../host/linux/cgroup.ts";
import { mountsUnder } from "../host/linux/scratch-dir.ts";
import { suiteSkip } from "../testing/requirements.ts";
import { kubectlAgainst } from "./testing/kubectl-against.ts";
import { KvolProcess, startedCluster } from "./testing/kvol-process.ts";
import { runCommand } from "./testing/run-command.ts";
import { sleepMs, waitFor } from "./testing/wait-for.ts";

const startTimeoutMs = 180_000;
const podTimeoutMs = 240_000;
const commandTimeoutMs = 90_000;
/** Per case: the machine is shared and loaded; seed 004 alone takes over a minute. */
const caseTimeoutMs = 600_000;
const examplesDir = fileURLToPath(new URL("../../examples/", import.meta.url));
const kvolBin = fileURLToPath(new URL("../../bin/kvol.js", import.meta.url));
const nodeNames = ["node-1", "node-2"] as const;

function commandPath(name: string): string {
  return spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).stdout.trim();
}

function skipReason(): string | undefined {
  if (process.getuid?.() !== 0) return "real nodes need root";
  if (commandPath("kubectl") === "") return "no kubectl on the PATH (install kubernetes-client)";
  return undefined;
}

interface PodJson {
  metadata: { name: string; uid: string; namespace: string; deletionTimestamp?: string };
  spec: { nodeName?: string; volumes?: { name: string; persistentVolumeClaim?: { claimName: string } }[] };
  status?: { phase?: string; containerStatuses?: { restartCount?: number; ready?: boolean }[] };
}

interface EventJson {
  reason?: string;
  message?: string;
  involvedObject?: { name?: string; kind?: string };
}

const suiteTitle = "the seeds on a real two-node cluster";

describe(suiteTitle, { skip: suiteSkip(suiteTitle, skipReason()) }, () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-real-cluster-"));
  const disksDir = join(dir, "disks");
  let up: KvolProcess | undefined;
  let kubeconfig = "";
  let cgroup2Mount = "";
  /** The node seed 004 powers off. */
  let poweredOff: string | undefined;
  after(async () => {
    await up?.stop("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  const { kubectl, kubectlOk } = kubectlAgainst(() => kubeconfig, commandTimeoutMs);

  async function pods(namespace: string): Promise<PodJson[]> {
    const run = await kubectl(["get", "pods", "-n", namespace, "-o", "json"]);
    if (run.status !== 0) return [];
    return (JSON.parse(run.stdout) as { items: PodJson[] }).items;
  }

  async function pod(namespace: string, name: string): Promise<PodJson | undefined> {
    return (await pods(namespace)).find((item) => item.metadata.name === name);
  }

  async function runningPod(namespace: string, name: string): Promise<PodJson> {
    return waitFor(
      `pod ${namespace}/${name} Running`,
      async () => {
        const found = await pod(namespace, name);
        return found?.status?.phase === "Running" && found.metadata.deletionTimestamp === undefined ? found : undefined;
      },
      podTimeoutMs,
    );
  }

  /** `kvol why ARGS…` as a user runs it, polled until its output holds `text`. */
  async function kvolWhyUntil(args: readonly string[], text: string): Promise<string> {
    return waitFor(
      `kvol why ${args.join(" ")} to say ${JSON.stringify(text)}`,
      async () => {
        const why = await runCommand(
          process.execPath,
          [kvolBin, "why", ...args],
          { PATH: process.env.PATH ?? "", HOME: dir, KUBECONFIG: kubeconfig },
          commandTimeoutMs,
        );
        return why.stdout.includes(text) ? why.stdout : undefined;
      },
      podTimeoutMs,
    );
  }

  async function events(namespace: string): Promise<EventJson[]> {
    const run = await kubectl(["get", "events", "-n", namespace, "-o", "json"]);
    if (run.status !== 0) return [];
    return (JSON.parse(run.stdout) as { items: EventJson[] }).items;
  }

  async function eventOf(namespace: string, podName: string, reasonName: string, text: string): Promise<EventJson> {
    return waitFor(
      `a ${reasonName} event of ${namespace}/${podName} with ${JSON.stringify(text)}`,
      async () =>
        (await events(namespace)).find(
          (event) =>
            event.involvedObject?.name === podName &&
            event.reason === reasonName &&
            (event.message ?? "").includes(text),
        ),
      podTimeoutMs,
    );
  }

  function agentPid(nodeName: string): number {
    return Number(readFileSync(join(dir, "nodes", nodeName, "agent.pid"), "utf8").trim());
  }

  /** The node's mount table, as `findmnt` shows it inside the node's mount namespace. */
  function nodeMounts(nodeName: string): { target: string; source: string; fstype: string }[] {
    const run = spawnSync(
      "nsenter",
      ["-t", String(agentPid(nodeName)), "-m", "findmnt", "-rn", "-o", "TARGET,SOURCE,FSTYPE"],
      { encoding: "utf8" },
    );
    assert.equal(run.status, 0, run.stderr);
    return run.stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => {
        const [target = "", source = "", fstype = ""] = line.split(" ");
        return { target, source, fstype };
      });
  }

  /** Loop devices and their backing files (`losetup -l`). */
  function loopDevices(): { name: string; backFile: string }[] {
    const run = spawnSync("losetup", ["-l", "-n", "-O", "NAME,BACK-FILE"], { encoding: "utf8" });
    return run.stdout
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => {
        const [name = "", ...rest] = line.trim().split(/\s+/);
        return { name, backFile: rest.join(" ") };
      });
  }

  /** The disk mount of a pod's claim on its node: a loop device over a file of DATA/disks. */
  function podDiskMount(p: PodJson): { target: string; source: string; fstype: string } | undefined {
    const nodeName = p.spec.nodeName ?? "";
    return nodeMounts(nodeName).find(
      (mount) =>
        mount.target.includes(`/pods/${p.metadata.uid}/volumes/kubernetes.io~csi/`) &&
        /^\/dev\/loop\d+$/.test(mount.source),
    );
  }

  function nodeCgroups(nodeName: string): string[] {
    const base = nodeCgroupDir(cgroup2Mount, nodeName, join(dir, "nodes", nodeName, "kubelet"));
    return [base, `${base}-csi-plugins`];
  }

  it("starts kvol up --host linux --nodes 2", { timeout: caseTimeoutMs }, async () => {
    const probe = await probeLinuxRuntime();
    if ("problems" in probe) assert.fail(probe.problems.join("; "));
    cgroup2Mount = probe.cgroup2Mount;
    up = new KvolProcess(["up", "--host", "linux", "--nodes", "2", "--port", "0", "--data-dir", dir]);
    kubeconfig = (await startedCluster(up, startTimeoutMs)).kubeconfigPath;
    await up.waitForOutput(/Ready: 2 real node\(s\) on this machine/, startTimeoutMs);
  });

  it("(a) kubectl apply -f examples/: the pods Running on real loop-device disks of DATA/disks", {
    timeout: caseTimeoutMs,
  }, async () => {
    await kubectlOk(["apply", "-f", examplesDir]);
    const expected: [string, string][] = [
      ["default", "busybox1"],
      ["default", "web-0"],
      ["default", "web-1"],
      ["default", "csi-s3-test-nginx"],
    ];
    for (const [namespace, name] of expected) {
      const running = await runningPod(namespace, name);
      const mount = await waitFor(`the disk mount of ${name}`, () => podDiskMount(running), podTimeoutMs);
      assert.match(mount.fstype, /^ext4$/);
      const loop = loopDevices().find((device) => device.name === mount.source);
      assert.ok(loop !== undefined, `${mount.source} is a loop device`);
      assert.ok(loop.backFile.startsWith(`${disksDir}/`), `${mount.source} is over ${loop.backFile}, in DATA/disks`);
    }
    for (const namespace of ["ops-test", "sock-shop"]) {
      await waitFor(
        `the pods of ${namespace} Running`,
        async () => {
          const found = await pods(namespace);
          return found.length > 0 && found.every((item) => item.status?.phase === "Running") ? found : undefined;
        },
        podTimeoutMs,
      );
    }
  });

  it("(b, c) an RWO volume's data moves from node-1 to node-2; kubectl exec ls and kubectl logs", {
    timeout: caseTimeoutMs,
  }, async () => {
    const claim = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: moving}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 64Mi}}
`;
    await kubectlOk(["apply", "-f", "-"], claim);
    const podOn = (name: string, nodeName: string, command: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  terminationGracePeriodSeconds: 1
  nodeSelector: {kubernetes.io/hostname: ${nodeName}}
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "${command}"]
    volumeMounts: [{name: data, mountPath: /data}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: moving}}]
`;
    await kubectlOk(["apply", "-f", "-"], podOn("writer", "node-1", "echo moved-data > /data/file; sleep 3600"));
    const writer = await runningPod("default", "writer");
    assert.equal(writer.spec.nodeName, "node-1");
    await waitFor(
      "the writer's file",
      async () => (await kubectl(["exec", "writer", "--", "cat", "/data/file"])).stdout === "moved-data\n" || undefined,
      podTimeoutMs,
    );
    await kubectlOk(["delete", "pod", "writer", "--wait=true", "--timeout=240s"]);
    await kubectlOk(["apply", "-f", "-"], podOn("reader", "node-2", "cat /data/file; sleep 3600"));
    const reader = await runningPod("default", "reader");
    assert.equal(reader.spec.nodeName, "node-2");
    const attachments = JSON.parse(await kubectlOk(["get", "volumeattachments", "-o", "json"])) as {
      items: {
        spec: { nodeName: string; source: { persistentVolumeName?: string } };
        status?: { attached?: boolean };
      }[];
    };
    const volumeName = (
      JSON.parse(await kubectlOk(["get", "pvc", "moving", "-o", "json"])) as { spec: { volumeName: string } }
    ).spec.volumeName;
    const ofVolume = attachments.items.filter((item) => item.spec.source.persistentVolumeName === volumeName);
    assert.deepEqual(
      ofVolume.map((item) => [item.spec.nodeName, item.status?.attached]),
      [["node-2", true]],
      "the VolumeAttachment moved to node-2",
    );
    // (c) exec and logs through the API server to node-2's kubelet.
    assert.equal(await kubectlOk(["exec", "reader", "--", "ls", "/data"]), "file\nlost+found\n");
    assert.equal(await kubectlOk(["exec", "reader", "--", "cat", "/data/file"]), "moved-data\n");
    await waitFor(
      "kubectl logs reader",
      async () => (await kubectl(["logs", "reader"])).stdout === "moved-data\n" || undefined,
      podTimeoutMs,
    );
    await kubectlOk(["delete", "pod", "reader", "--wait=false"]);
  });

  it("(d) seed 000: a deleted StatefulSet pod comes back on the same node, mounts again, keeps its data", {
    timeout: caseTimeoutMs,
  }, async () => {
    const before = await runningPod("default", "web-0");
    await kubectlOk(["exec", "web-0", "--", "sh", "-c", "echo seed-000 > /usr/share/nginx/html/marker"]);
    await kubectlOk(["delete", "pod", "web-0", "--wait=false"]);
    const after = await waitFor(
      "a new web-0 Running",
      async () => {
        const found = await pod("default", "web-0");
        return found !== undefined && found.metadata.uid !== before.metadata.uid && found.status?.phase === "Running"
          ? found
          : undefined;
      },
      podTimeoutMs,
    );
    assert.equal(after.spec.nodeName, before.spec.nodeName, "back on the same node");
    assert.ok(podDiskMount(after) !== undefined, "its disk mounted again");
    assert.equal(await kubectlOk(["exec", "web-0", "--", "cat", "/usr/share/nginx/html/marker"]), "seed-000\n");
  });

  it("(e) seed 002: an NFS volume on a node without mount.nfs stays ContainerCreating with exit status 32", {
    timeout: caseTimeoutMs,
  }, async (t) => {
    const helper = commandPath("mount.nfs") || (existsSync("/sbin/mount.nfs") ? "/sbin/mount.nfs" : "");
    if (helper !== "") {
      t.skip(`this machine has ${helper}: the mount would reach for a server rather than fail for want of the helper`);
      return;
    }
    const manifests = `apiVersion: v1
kind: PersistentVolume
metadata: {name: nfs-pv-211}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteMany]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: ""
  nfs: {server: 127.0.0.1, path: /exports/211}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: nfs-claim, namespace: ops-test}
spec:
  accessModes: [ReadWriteMany]
  storageClassName: ""
  volumeName: nfs-pv-211
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: nfs-user, namespace: ops-test}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: busybox
    command: ["sleep", "3600"]
    volumeMounts: [{name: vol1, mountPath: /tmp}]
  volumes: [{name: vol1, persistentVolumeClaim: {claimName: nfs-claim}}]
`;
    await kubectlOk(["apply", "-f", "-"], manifests);
    const event = await eventOf("ops-test", "nfs-user", "FailedMount", "exit status 32");
    const message = event.message ?? "";
    assert.match(message, /^MountVolume\.SetUp failed for volume "nfs-pv-211" : mount failed: exit status 32\n/);
    assert.match(message, /\nMounting command: mount\n/);
    assert.match(
      message,
      /\nMounting arguments: -t nfs 127\.0\.0\.1:\/exports\/211 \S+\/pods\/[0-9a-f-]+\/volumes\/kubernetes\.io~nfs\/nfs-pv-211\n/,
    );
    // mount(8)'s own words, which depend on the machine: without the helper, a kernel without the
    // nfs module says "unknown filesystem type 'nfs'"; one with it asks for the helper program.
    assert.match(
      message,
      /\nOutput: mount: \S+\/nfs-pv-211: (unknown filesystem type 'nfs'|bad option; .*mount\.<type> helper program)/s,
    );
    const stuck = await pod("ops-test", "nfs-user");
    assert.equal(stuck?.status?.phase, "Pending", "ContainerCreating: the container never started");
    const waiting = JSON.parse(await kubectlOk(["get", "pod", "nfs-user", "-n", "ops-test", "-o", "json"])) as {
      status: { containerStatuses?: { state?: { waiting?: { reason?: string } } }[] };
    };
    assert.equal(waiting.status.containerStatuses?.[0]?.state?.waiting?.reason, "ContainerCreating");
    const nodeName = stuck?.spec.nodeName ?? "";
    const why = await kvolWhyUntil(["pod/nfs-user", "-n", "ops-test"], "exit status 32: node");
    assert.ok(
      why.includes(
        `pv nfs-pv-211: not mounted on node ${nodeName}: mount failed: exit status 32: node ${nodeName} has no /sbin/mount.nfs helper`,
      ),
      why,
    );
    assert.ok(
      why.includes(
        `Install the helper on node ${nodeName}: apt-get install nfs-common (Debian/Ubuntu) or dnf install nfs-utils (RHEL/Fedora).`,
      ),
      why,
    );
    await kubectlOk(["delete", "pod", "nfs-user", "-n", "ops-test", "--grace-period=0", "--force"]);
  });

  it("(f) seed 003: kill -9 of the FUSE node plugin ⇒ ENOTCONN; restarted, it re-establishes the mount", {
    timeout: caseTimeoutMs,
  }, async () => {
    const manifests = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fuse}
provisioner: fuse.csi.kvol.io
reclaimPolicy: Delete
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: csi-fuse-pvc}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: fuse
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: fuse-nginx}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "echo fuse-page > /var/lib/www/html/index.html; sleep 3600"]
    livenessProbe:
      exec: {command: ["ls", "/var/lib/www/html"]}
      initialDelaySeconds: 5
      periodSeconds: 5
      failureThreshold: 3
    volumeMounts: [{name: webroot, mountPath: /var/lib/www/html}]
  volumes: [{name: webroot, persistentVolumeClaim: {claimName: csi-fuse-pvc}}]
`;
    await kubectlOk(["apply", "-f", "-"], manifests);
    const running = await runningPod("default", "fuse-nginx");
    const nodeName = running.spec.nodeName ?? "";
    await waitFor(
      "the page through FUSE",
      async () =>
        (await kubectl(["exec", "fuse-nginx", "--", "cat", "/var/lib/www/html/index.html"])).stdout === "fuse-page\n" ||
        undefined,
      podTimeoutMs,
    );
    assert.ok(
      nodeMounts(nodeName).some(
        (mount) => mount.target.includes(`/pods/${running.metadata.uid}/`) && mount.fstype.startsWith("fuse"),
      ),
      "a real FUSE mount in the node's namespace",
    );
    // kill -9 of the plugin and of everything in its scope, as a container restart does.
    const pluginPid = Number(
      readFileSync(join(dir, "nodes", nodeName, "csi-plugins", "fuse.csi.kvol.io.pid"), "utf8").trim(),
    );
    const scope = join(nodeCgroups(nodeName)[1] ?? "", "fuse.csi.kvol.io");
    assert.ok((await cgroupPids(scope)).includes(pluginPid), `the plugin runs in its own cgroup ${scope}`);
    process.kill(pluginPid, "SIGKILL");
    writeFileSync(join(scope, "cgroup.kill"), "1");
    const broken = await kubectl(["exec", "fuse-nginx", "--", "cat", "/var/lib/www/html/index.html"]);
    assert.notEqual(broken.status, 0);
    assert.match(broken.stdout + broken.stderr, /Transport endpoint is not connected/);
    // The liveness probe meets the dead mount before the container restarts: kvol why names it.
    const why = await kvolWhyUntil(["pod/fuse-nginx"], "(ENOTCONN)");
    assert.ok(
      why.includes(
        "└─ a volume mount of the pod: the mount's FUSE daemon is gone: transport endpoint is not connected (ENOTCONN)",
      ),
      why,
    );
    // busybox ls words it after the call that failed: opendir ("can't open 'DIR'") or stat ("DIR").
    assert.match(
      why,
      /Liveness probe failed: ls: (can't open '\/var\/lib\/www\/html'|\/var\/lib\/www\/html): Transport endpoint is not connected/,
    );
    assert.ok(
      why.includes("Delete the pod: NodeUnpublish cleans the dead mount up and the new pod gets a fresh one."),
      why,
    );
    // The agent starts the plugin again (after the 10 s back-off) and it re-establishes the mount;
    // the liveness probe restarts the container, which then sees the repaired mount.
    await waitFor(
      "the plugin started again",
      () => {
        const pidFile = join(dir, "nodes", nodeName, "csi-plugins", "fuse.csi.kvol.io.pid");
        return existsSync(pidFile) && Number(readFileSync(pidFile, "utf8").trim()) !== pluginPid ? true : undefined;
      },
      podTimeoutMs,
    );
    await waitFor(
      "the container reads the page again",
      async () =>
        (await kubectl(["exec", "fuse-nginx", "--", "cat", "/var/lib/www/html/index.html"])).stdout === "fuse-page\n" ||
        undefined,
      podTimeoutMs,
    );
    const restarted = await pod("default", "fuse-nginx");
    assert.ok((restarted?.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1, "the liveness probe restarted it");
    const healed = await kvolWhyUntil(["pod/fuse-nginx"], "Nothing blocks this pod's volumes.");
    assert.ok(!healed.includes("ENOTCONN"), healed);
  });

  it("(g) seed 004: power-off of user-db's node ⇒ Multi-Attach error; the out-of-service taint moves it", {
    timeout: caseTimeoutMs,
  }, async () => {
    const old = await waitFor(
      "user-db Running",
      async () => (await pods("sock-shop")).find((item) => item.status?.phase === "Running"),
      podTimeoutMs,
    );
    const deadNode = old.spec.nodeName ?? "";
    const otherNode = nodeNames.find((name) => name !== deadNode) ?? "";
    await kubectlOk(["exec", "-n", "sock-shop", old.metadata.name, "--", "sh", "-c", "echo users > /data/db/marker"]);
    await kubectlOk(["exec", "-n", "sock-shop", old.metadata.name, "--", "sync"]);
    const volumeName = (
      JSON.parse(await kubectlOk(["get", "pvc", "user-pv", "-n", "sock-shop", "-o", "json"])) as {
        spec: { volumeName: string };
      }
    ).spec.volumeName;

    powerOff(deadNode);
    poweredOff = deadNode;
    await waitFor(
      `${deadNode} NotReady`,
      async () => {
        const node = JSON.parse(await kubectlOk(["get", "node", deadNode, "-o", "json"])) as {
          status: { conditions: { type: string; status: string }[] };
        };
        return (
          node.status.conditions.find((condition) => condition.type === "Ready")?.status === "Unknown" || undefined
        );
      },
      podTimeoutMs,
    );
    // The taint manager would evict the pod after its 300 s toleration; deleting it is the same
    // request sooner. Its kubelet is gone, so it stays Terminating and keeps the attachment.
    await kubectlOk(["delete", "pod", "-n", "sock-shop", old.metadata.name, "--wait=false"]);
    const replacement = await waitFor(
      "the replacement pod scheduled",
      async () =>
        (await pods("sock-shop")).find(
          (item) => item.metadata.uid !== old.metadata.uid && item.spec.nodeName !== undefined,
        ),
      podTimeoutMs,
    );
    assert.equal(replacement.spec.nodeName, otherNode);
    await eventOf(
      "sock-shop",
      replacement.metadata.name,
      "FailedAttachVolume",
      `Multi-Attach error for volume "${volumeName}" Volume is already used by pod(s) ${old.metadata.name}`,
    );

    await kubectlOk(["taint", "node", deadNode, "node.kubernetes.io/out-of-service=nodeshutdown:NoExecute"]);
    await waitFor(
      "the old pod force-deleted",
      async () => ((await pod("sock-shop", old.metadata.name)) === undefined ? true : undefined),
      podTimeoutMs,
    );
    await runningPod("sock-shop", replacement.metadata.name);
    const attachments = JSON.parse(await kubectlOk(["get", "volumeattachments", "-o", "json"])) as {
      items: { spec: { nodeName: string; source: { persistentVolumeName?: string } } }[];
    };
    assert.deepEqual(
      attachments.items
        .filter((item) => item.spec.source.persistentVolumeName === volumeName)
        .map((item) => item.spec.nodeName),
      [otherNode],
    );
    assert.equal(
      await kubectlOk(["exec", "-n", "sock-shop", replacement.metadata.name, "--", "cat", "/data/db/marker"]),
      "users\n",
    );
  });

  /** kill -9 of the node agent and of every process in its mount namespace and cgroups; its cgroups go, as at power-off. */
  function powerOff(nodeName: string): void {
    const pid = agentPid(nodeName);
    const namespace = readlinkSync(`/proc/${pid}/ns/mnt`);
    for (const cgroup of nodeCgroups(nodeName)) {
      if (existsSync(join(cgroup, "cgroup.kill"))) writeFileSync(join(cgroup, "cgroup.kill"), "1");
    }
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (readlinkSync(`/proc/${entry}/ns/mnt`) === namespace) process.kill(Number(entry), "SIGKILL");
      } catch (error) {
        // Gone while we looked, or a process we may not inspect (not one of the node's, which are ours).
        if (!["ENOENT", "ESRCH", "EACCES"].includes((error as NodeJS.ErrnoException).code ?? "")) throw error;
      }
    }
  }

  it("(h) Ctrl-C leaves no process, mount, loop device or cgroup behind", { timeout: caseTimeoutMs }, async () => {
    assert.ok(up !== undefined);
    // The powered-off node's cgroups are emptied by now; remove them, as its reboot would.
    if (poweredOff !== undefined) {
      for (const cgroup of nodeCgroups(poweredOff)) await removeEmptyCgroupTree(cgroup);
    }
    assert.equal(await up.stop("SIGINT"), 0, up.stderr);
    const left = readdirSync("/proc").filter((entry) => {
      if (!/^\d+$/.test(entry)) return false;
      try {
        return readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return false; // gone while we looked
        throw error;
      }
    });
    assert.deepEqual(left, [], "no process of the cluster left");
    assert.deepEqual(await mountsUnder(dir), [], "no mount under the data directory");
    assert.deepEqual(
      loopDevices().filter((device) => device.backFile.startsWith(`${disksDir}/`)),
      [],
      "no loop device over DATA/disks",
    );
    for (const name of nodeNames) {
      for (const cgroup of nodeCgroups(name)) assert.equal(existsSync(cgroup), false, `no cgroup ${cgroup}`);
    }
  });
});

async function removeEmptyCgroupTree(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  for (let attempt = 0; attempt < 100 && (await cgroupPids(dir)).length > 0; attempt++) await sleepMs(100);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) await removeEmptyCgroupTree(join(dir, entry.name));
  }
  rmdirSync(dir);
}
