/**
 * `kvol why` on the built-in incidents: each scenario is played to the moment a user would ask,
 * then the chain is read over the API server (objects, events, debug endpoints) as the command
 * reads it, and its key lines are checked.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../cmd/cluster.ts";
import type { KubeApi } from "../client/kube-api.ts";
import { whyReport } from "../why-command.ts";
import type { WhyKind } from "./explain.ts";
import { atScenarioTime } from "./testing/scenario-api.ts";
import { reportText } from "./why-report.ts";

const minuteMs = 60_000;

async function whyText(
  api: KubeApi,
  cluster: Cluster,
  kind: WhyKind,
  namespace: string,
  name: string,
): Promise<string> {
  const { report, nowMs } = await whyReport(api, kind, namespace, name, cluster.clock.now());
  return reportText(report, nowMs);
}

/** The live (not Terminating) pod of the namespace whose name starts with `prefix`. */
async function livePod(cluster: Cluster, namespace: string, prefix: string): Promise<string> {
  const pods = await cluster.list("Pod", { namespace });
  const pod = pods.find(
    (candidate) => candidate.metadata?.name?.startsWith(prefix) && !candidate.metadata.deletionTimestamp,
  );
  assert.ok(pod?.metadata?.name, `no live pod ${namespace}/${prefix}*`);
  return pod.metadata.name;
}

function assertLines(text: string, expected: readonly (string | RegExp)[]): void {
  for (const line of expected) {
    if (typeof line === "string") assert.ok(text.includes(line), `expected ${JSON.stringify(line)} in:\n${text}`);
    else assert.match(text, line);
  }
}

describe("kvol why on the seed incidents", () => {
  it("seed 004: Multi-Attach after the node died, down to the Terminating pod, the dead node and the out-of-service taint", async () => {
    const text = await atScenarioTime("004-rbd-node-shutdown-rwx.yaml", 8 * minuteMs, async (api, cluster) =>
      whyText(api, cluster, "Pod", "sock-shop", await livePod(cluster, "sock-shop", "user-db-")),
    );
    assertLines(text, [
      /^pod sock-shop\/user-db-\S+: Pending, ContainerCreating on node node-b/,
      '└─ volume "data-volume": claim sock-shop/user-pvc',
      "claim sock-shop/user-pvc: Bound to pv user-pv",
      "pv user-pv: not attached to node node-b: Multi-Attach, the volume is attached to node node-a",
      'Multi-Attach error for volume "user-pv" Volume is already used by pod(s) user-db-',
      /pod sock-shop\/user-db-\S+ \(uid [0-9a-f-]+\): Terminating on node node-a, still holding the volume \(for \d+s\)/,
      // Power lost at 1m; the node controller marks it Unknown about 40 s later.
      /node node-a: NotReady \(Ready=Unknown\) \(for 6m\d+s\)/,
      "condition Ready NodeStatusUnknown: Kubelet stopped posting node status.",
      "force-detaches the volume from node-a 6 min after the pod object sock-shop/user-db-",
      "kubectl taint nodes node-a node.kubernetes.io/out-of-service=nodeshutdown:NoExecute",
    ]);
  });

  it("force-deleted pod on a dead node: the force-detach time, 6 min after the pod object went", async () => {
    const text = await atScenarioTime("008-force-detach-dead-node.yaml", 11 * minuteMs, async (api, cluster) =>
      whyText(api, cluster, "Pod", "default", "db-0"),
    );
    assertLines(text, [
      "not attached to node node-b: Multi-Attach, the volume is attached to node node-a",
      // db-0 was force-deleted at 9m: the timer starts when the controller sees it gone.
      /force-detaches the volume from node-a at 00:15:0\d \(in 4m\d*s?\)/,
      "kubectl taint nodes node-a node.kubernetes.io/out-of-service=nodeshutdown:NoExecute",
    ]);
  });

  it("seed 002: exit status 32, the mount helper and the package to install", async () => {
    const text = await atScenarioTime("002-nfs-helper-missing.yaml", 90_000, async (api, cluster) =>
      whyText(api, cluster, "Pod", "ops-test", await livePod(cluster, "ops-test", "node1-nfs-test-")),
    );
    assertLines(text, [
      "pv nfs211: not mounted on node node1: mount failed: exit status 32: node node1 has no /sbin/mount.nfs helper",
      "no retries permitted until 00:02:08 (durationBeforeRetry 1m4s)",
      "apt-get install nfs-common (Debian/Ubuntu) or dnf install nfs-utils (RHEL/Fedora)",
    ]);
  });

  it("seed 002: the failing mount's age counts from its first failure, not from the last retry", async () => {
    const text = await atScenarioTime("002-nfs-helper-missing.yaml", 123_000, async (api, cluster) =>
      whyText(api, cluster, "Pod", "ops-test", await livePod(cluster, "ops-test", "node1-nfs-test-")),
    );
    assertLines(text, [
      // The first FailedMount came at 0s, the last retry at 1m5s: stuck on exit status 32 for 2m3s.
      "pv nfs211: not mounted on node node1: mount failed: exit status 32: node node1 has no /sbin/mount.nfs helper (for 2m3s)",
      "kubelet: volume_mount failed 58s ago; no retries permitted until 00:02:08 (durationBeforeRetry 1m4s)",
    ]);
  });

  it("missing secret and configMap", async () => {
    const text = await atScenarioTime("009-missing-secret-and-configmap.yaml", minuteMs, async (api, cluster) =>
      whyText(api, cluster, "Pod", "default", "app"),
    );
    assertLines(text, [
      "pod default/app: Pending, ContainerCreating on node node-a (for 60s)",
      'secret "db-creds" not found',
      '└─ volume "creds": secret default/db-creds not found',
      "Create secret db-creds in namespace default",
    ]);
  });

  it("a pod Terminating on a busy mount: the failing unmount and its backoff", async () => {
    const text = await atScenarioTime("017-terminating-for-days-busy-mount.yaml", 5 * minuteMs, async (api, cluster) =>
      whyText(api, cluster, "Pod", "default", "app"),
    );
    assertLines(text, [
      "pod default/app: Terminating on node node-a",
      'volume "data": teardown failing: unmount failed: target is busy',
      /volume_unmount failed \d+s ago; no retries permitted until 00:0\d:\d\d \(durationBeforeRetry 1m4s\)/,
      /mount \/var\/lib\/kubelet\/pods\/[0-9a-f-]+\/volumes\/kvol\.io~sim-disk\/pvc-[0-9a-f-]+: held by pid \d+ \(fluent-bit -c \/fluent-bit\/etc\/fluent-bit\.conf\)$/m,
      "fuser -vm MOUNTPOINT",
    ]);
  });

  it("volume limit reached: the node, how many of how many, what fills it and what to do", async () => {
    const text = await atScenarioTime("022-volume-limit-reached.yaml", 2 * minuteMs, async (api, cluster) =>
      whyText(api, cluster, "Pod", "default", "db-2"),
    );
    assertLines(text, [
      "pod default/db-2: Pending, not scheduled: 0/1 nodes are available: 1 node(s) exceed max volume count.",
      "└─ node node-a: disk.csi.kvol.io volume limit reached: 2 of 2 in use, the pod needs 1 more",
      "· CSINode node-a: disk.csi.kvol.io allocatable count 2 (the driver's max_volumes_per_node)",
      "· pod default/db-0: 1 disk.csi.kvol.io volume(s)",
      "· pod default/db-1: 1 disk.csi.kvol.io volume(s)",
      "Free a slot: delete or move a pod that uses disk.csi.kvol.io volumes on node-a (kubectl get pods -A --field-selector spec.nodeName=node-a)",
      "Or add a node",
    ]);
    assert.doesNotMatch(
      text,
      /WaitForFirstConsumer|waiting for first consumer/i,
      "the claim waits for the pod, not the reverse",
    );
  });

  it("pvc-protection: a deleted claim held by the pod that uses it", async () => {
    const text = await atScenarioTime("006-pvc-protection-terminating-claim.yaml", 2 * minuteMs, async (api, cluster) =>
      whyText(api, cluster, "PersistentVolumeClaim", "default", "data"),
    );
    assertLines(text, [
      "claim default/data: Terminating: kubernetes.io/pvc-protection keeps it while a pod uses it (for 30s)",
      "└─ pod default/app: Running, uses the claim",
      "kubectl delete pod -n default app",
    ]);
  });

  it("pvc-protection: a completed pod still holds the claim", async () => {
    const text = await atScenarioTime("016-pvc-protection-completed-pod.yaml", 5 * minuteMs, async (api, cluster) =>
      whyText(api, cluster, "PersistentVolumeClaim", "default", "dump"),
    );
    assertLines(text, [
      "claim default/dump: Terminating: kubernetes.io/pvc-protection keeps it while a pod uses it (for 2m)",
      "└─ pod default/backup: Completed, but its object still names the claim",
      "kubectl delete pod -n default backup",
    ]);
  });
});

describe("kvol why on claims and failing operations", () => {
  it("WaitForFirstConsumer: a claim no pod uses yet", async () => {
    const text = await atScenarioTime("005-wait-for-first-consumer-zones.yaml", 5_000, async (api, cluster) =>
      whyText(api, cluster, "PersistentVolumeClaim", "default", "data"),
    );
    assertLines(text, [
      "claim default/data: Pending: waiting for first consumer",
      "event WaitForFirstConsumer",
      "waiting for first consumer to be created before binding",
      "create a pod that uses the claim",
    ]);
  });

  it("an operation in backoff: the error and 'no retries permitted until'", async () => {
    const text = await atScenarioTime("013-disk-format-failure.yaml", 150_000, async (api, cluster) =>
      whyText(api, cluster, "Pod", "default", "app"),
    );
    assertLines(text, [
      /not mounted on node node-a: MountVolume\.MountDevice failed: format of disk "\S+" failed/,
      /kubelet: volume_mount failed \d+s ago; no retries permitted until 00:0\d:\d\d \(durationBeforeRetry 1m4s\)/,
      "operations in backoff wait 500ms doubling up to 2m2s",
    ]);
  });
});

describe("kvol why on a broken FUSE mount", () => {
  it("seed 003: the pod's mount answers ENOTCONN after the CSI node plugin restarted", async () => {
    const text = await atScenarioTime("003-fuse-csi-plugin-restart.yaml", 330_000, async (api, cluster) =>
      whyText(api, cluster, "Pod", "default", "csi-s3-test-nginx"),
    );
    assertLines(text, [
      "└─ a volume mount of the pod: the mount's FUSE daemon is gone: transport endpoint is not connected (ENOTCONN)",
      "Liveness probe failed: ls: cannot access '/var/lib/www/html': Transport endpoint is not connected",
      "Delete the pod: NodeUnpublish cleans the dead mount up",
    ]);
    // The probe's ENOTCONN event is the mount link's evidence, shown once; the pod's link keeps its other warning.
    const enotconnLines = text.split("\n").filter((line) => line.includes("Transport endpoint is not connected"));
    assert.deepEqual(enotconnLines, [
      "   · event Unhealthy (×3, last 3m19s ago): Liveness probe failed: ls: cannot access '/var/lib/www/html': Transport endpoint is not connected",
    ]);
    assert.match(text, /^ {3}· event Failed \(×18, last 2s ago\): Error: error while creating mount source path/m);
  });
});

describe("kvol why on a repaired FUSE mount", () => {
  it("seed 003 with the fix: once the container restarted on the re-established mount, ENOTCONN is history", async () => {
    // The plugin restarts at 2m; three failed probes restart the container about 15 s later.
    const text = await atScenarioTime("003-fuse-csi-plugin-restart-fixed.yaml", 150_000, async (api, cluster) =>
      whyText(api, cluster, "Pod", "default", "csi-s3-test-nginx"),
    );
    assertLines(text, [
      "pod default/csi-s3-test-nginx: Running on node node-a",
      "Liveness probe failed: ls: cannot access '/var/lib/www/html': Transport endpoint is not connected",
      "Nothing blocks this pod's volumes.",
    ]);
    assert.ok(!text.includes("(ENOTCONN)"), text);
  });
});

describe("kvol why on an uncertain mount", () => {
  it("seed 011: NodeStage answered DeadlineExceeded, the device's global mount is uncertain until the retry", async () => {
    // The first NodeStageVolume fails at about 10.4 s; the retry 500ms later succeeds.
    const text = await atScenarioTime("011-csi-attach-deadline-exceeded.yaml", 10_700, async (api, cluster) =>
      whyText(api, cluster, "Pod", "default", "app"),
    );
    assertLines(text, [
      "pod default/app: Pending, ContainerCreating on node node-a",
      /pv pvc-\S+: not mounted on node node-a: the storage backend did not answer in time; the outcome is uncertain \(mount uncertain: it may or may not be mounted\)/,
      /kubelet: volume_mount failed 0s ago; no retries permitted until 00:00:1\d \(durationBeforeRetry 500ms\)/,
      "rpc error: code = DeadlineExceeded desc = context deadline exceeded",
      /kubelet: DeviceMountUncertain for kubernetes\.io\/csi\/mock\.csi\.kvol\.io\^\S+ at \/var\/lib\/kubelet\/plugins\/kubernetes\.io\/csi\/mock\.csi\.kvol\.io\/[0-9a-f]+\/globalmount/,
      "The kubelet retries with backoff and treats the mount as uncertain meanwhile",
    ]);
    assert.ok(!text.includes("No volume blocks this pod"), text);
  });

  it("seed 011: between the attach and the kubelet's first mount the volume is named, not passed over", async () => {
    const text = await atScenarioTime("011-csi-attach-deadline-exceeded.yaml", 10_100, async (api, cluster) =>
      whyText(api, cluster, "Pod", "default", "app"),
    );
    assertLines(text, [/pv pvc-\S+: not yet mounted on node node-a: the kubelet has not started mounting it/]);
    assert.ok(!text.includes("No volume blocks this pod"), text);
  });
});
