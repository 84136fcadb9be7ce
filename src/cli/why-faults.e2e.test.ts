/**
 * `kvol why` through the real CLI on a live `kvol up` (one simulated node), for the chains that
 * need a failing driver, a missing tool or an injected fault, each made as a user would make it:
 * - a StorageClass whose parameter disk.csi.kvol.io refuses: CreateVolume fails, ProvisioningFailed;
 * - a pod on a claim of a CSI driver whose CSIDriver object exists but whose node plugin the
 *   node's kubelet never registered;
 * - an NFS volume on a node without mount.nfs (`kvol fault mount-helper-missing`): exit status 32;
 * - a fuse.csi.kvol.io volume whose FUSE daemon dies (`kvol fault fuse-daemon-killed`): ENOTCONN,
 *   until the kubelet republishes the mount at the container's restart;
 * - a disk.csi.kvol.io NodeStageVolume answering DeadlineExceeded (`kvol fault
 *   csi-deadline-exceeded driver=disk.csi.kvol.io`): the kubelet's device mount is uncertain.
 * Runs with KVOL_E2E=1 or under CI=true.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PodStatus } from "kubernetes-types/core/v1.js";
import type { Pod } from "../api/objects.ts";
import { suiteSkip } from "../testing/requirements.ts";
import { waitFor } from "./testing/wait-for.ts";
import { assertLines, LiveCluster, liveClusterSkipReason, liveWaitMs } from "./why/testing/live-cluster.ts";

const brokenClassYaml = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: { name: broken }
provisioner: disk.csi.kvol.io
parameters: { speed: fast }
volumeBindingMode: Immediate
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: failing }
spec: { accessModes: [ReadWriteOnce], storageClassName: broken, resources: { requests: { storage: 1Gi } } }
`;

/** An NFS driver's CSIDriver object, as its Helm chart installs it, but no node plugin on any node. */
const unregisteredDriverYaml = `apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: { name: nfs.csi.k8s.io }
spec: { attachRequired: false }
---
apiVersion: v1
kind: PersistentVolume
metadata: { name: share }
spec:
  capacity: { storage: 10Gi }
  accessModes: [ReadWriteMany]
  storageClassName: ""
  csi: { driver: nfs.csi.k8s.io, volumeHandle: nfs-server/share }
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: share }
spec: { accessModes: [ReadWriteMany], storageClassName: "", volumeName: share, resources: { requests: { storage: 10Gi } } }
---
apiVersion: v1
kind: Pod
metadata: { name: reader }
spec:
  containers: [{ name: app, image: busybox, volumeMounts: [{ name: share, mountPath: /share }] }]
  volumes: [{ name: share, persistentVolumeClaim: { claimName: share } }]
`;

const nfsPodYaml = `apiVersion: v1
kind: Pod
metadata: { name: nfs }
spec:
  containers: [{ name: app, image: busybox, volumeMounts: [{ name: exports, mountPath: /exports }] }]
  volumes: [{ name: exports, nfs: { server: 10.0.0.5, path: /exports/data } }]
`;

/** Seed 003's pod: a liveness probe that lists the FUSE-served web root. */
const fusePodYaml = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: { name: fuse }
provisioner: fuse.csi.kvol.io
volumeBindingMode: Immediate
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: webroot }
spec: { accessModes: [ReadWriteMany], storageClassName: fuse, resources: { requests: { storage: 1Gi } } }
---
apiVersion: v1
kind: Pod
metadata: { name: web }
spec:
  containers:
    - name: web
      image: nginx
      livenessProbe:
        exec: { command: [ls, /var/lib/www/html] }
        periodSeconds: 5
        failureThreshold: 3
      volumeMounts: [{ name: webroot, mountPath: /var/lib/www/html }]
  volumes: [{ name: webroot, persistentVolumeClaim: { claimName: webroot } }]
`;

const diskPodYaml = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: db }
spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }
---
apiVersion: v1
kind: Pod
metadata: { name: db }
spec:
  containers: [{ name: db, image: busybox, volumeMounts: [{ name: data, mountPath: /data }] }]
  volumes: [{ name: data, persistentVolumeClaim: { claimName: db } }]
`;

async function podStatus(cluster: LiveCluster, name: string): Promise<PodStatus> {
  const got = await cluster.cli(["get", "pod", name, "-o", "json"]);
  assert.equal(got.status, 0, got.stderr);
  return (JSON.parse(got.stdout) as Pod).status ?? {};
}

describe("kvol why on injected faults, on a live kvol up", {
  skip: suiteSkip("kvol why on injected faults, on a live kvol up", liveClusterSkipReason()),
}, () => {
  let cluster: LiveCluster;

  before(async () => {
    cluster = await LiveCluster.start("why-faults", ["--nodes", "1"]);
  });
  after(async () => {
    await cluster?.stop();
  });

  it("a provisioner error: ProvisioningFailed with the driver's InvalidArgument, and how to fix the class", async () => {
    await cluster.apply(brokenClassYaml);
    const text = await cluster.whyUntil("pvc/failing", "event ProvisioningFailed");
    assertLines(text, [
      'claim default/failing: Pending: provisioner disk.csi.kvol.io fails: failed to provision volume with StorageClass "broken": rpc error: code = InvalidArgument desc = CreateVolume: parameter "speed" is not known to disk.csi.kvol.io (it takes "multiAttach")',
      /event ProvisioningFailed \((×\d+, )?last \d+s ago\): failed to provision volume with StorageClass "broken"/,
      "disk.csi.kvol.io refuses the request as invalid: fix the claim's spec, or storage class broken's parameters; the provisioner retries with backoff and picks the change up.",
      "A class cannot be edited: kubectl get storageclass broken -o yaml > class.yaml, fix it, kubectl replace --force -f class.yaml.",
    ]);
  });

  it("a CSI driver not registered on the node: driver name not found in the list of registered CSI drivers", async () => {
    await cluster.apply(unregisteredDriverYaml);
    const text = await cluster.whyUntil("pod/reader", "is not registered with the kubelet");
    assertLines(text, [
      "pod default/reader: Pending, ContainerCreating on node node-1",
      'MountVolume.MountDevice failed for volume "share" : kubernetes.io/csi: attacher.MountDevice failed to create newCsiDriverClient: driver name nfs.csi.k8s.io not found in the list of registered CSI drivers',
      "claim default/share: Bound to pv share",
      "pv share: not mounted on node node-1: CSI driver nfs.csi.k8s.io is not registered with the kubelet on node node-1",
      /kubelet: volume_mount failed \d+s ago; no retries permitted until \d\d:\d\d:\d\d \(durationBeforeRetry \d+m?\d*m?s\)/,
      "Start (or fix) nfs.csi.k8s.io's node plugin on node node-1: its node-driver-registrar registers it with the kubelet.",
      "Check: kubectl get csinode node-1 -o yaml (spec.drivers lists the registered drivers).",
    ]);
  });

  it("exit status 32 on a node without mount.nfs: the helper and the package to install", async () => {
    await cluster.fault("mount-helper-missing", "node-1");
    await cluster.apply(nfsPodYaml);
    const text = await cluster.whyUntil("pod/nfs", "exit status 32: node node-1");
    assertLines(text, [
      "pod default/nfs: Pending, ContainerCreating on node node-1",
      'MountVolume.SetUp failed for volume "exports" : mount failed: exit status 32',
      'volume "exports": not mounted on node node-1: mount failed: exit status 32: node node-1 has no /sbin/mount.nfs helper',
      "mount: wrong fs type, bad option, bad superblock on 10.0.0.5:/exports/data,",
      "Install the helper on node node-1: apt-get install nfs-common (Debian/Ubuntu) or dnf install nfs-utils (RHEL/Fedora).",
    ]);
  });

  it("ENOTCONN after the FUSE daemon died, until the kubelet republishes the mount at the restart", async () => {
    await cluster.apply(fusePodYaml);
    await cluster.whyUntil("pod/web", "pod default/web: Running on node node-1");
    await cluster.fault("fuse-daemon-killed", "node-1");
    const text = await cluster.whyUntil("pod/web", "transport endpoint is not connected (ENOTCONN)");
    assertLines(text, [
      "└─ a volume mount of the pod: the mount's FUSE daemon is gone: transport endpoint is not connected (ENOTCONN)",
      "Liveness probe failed: ls: cannot access '/var/lib/www/html': Transport endpoint is not connected",
      "The kernel mount outlived its FUSE daemon (its CSI node plugin restarted, or the daemon was killed). Delete the pod: NodeUnpublish cleans the dead mount up and the new pod gets a fresh one.",
    ]);
    // Three failed probes restart the container; kvol's kubelet republishes the corrupted mount first.
    const healed = await cluster.whyUntil("pod/web", "Nothing blocks this pod's volumes.");
    assert.ok(!healed.includes("ENOTCONN"), healed);
    assert.equal((await podStatus(cluster, "web")).containerStatuses?.[0]?.restartCount, 1);
  });

  it("an uncertain mount: NodeStageVolume answered DeadlineExceeded, and the pod starts once the driver answers", async () => {
    await cluster.fault("csi-deadline-exceeded", "driver=disk.csi.kvol.io", "method=NodeStageVolume");
    await cluster.apply(diskPodYaml);
    const text = await cluster.whyUntil("pod/db", "mount uncertain");
    assertLines(text, [
      "pod default/db: Pending, ContainerCreating on node node-1",
      /└─ claim default\/db: Bound to pv pvc-[0-9a-f-]+/,
      /pv pvc-[0-9a-f-]+: not mounted on node node-1: the storage backend did not answer in time; the outcome is uncertain \(mount uncertain: it may or may not be mounted\)/,
      "rpc error: code = DeadlineExceeded desc = context deadline exceeded",
      /kubelet: DeviceMountUncertain for kubernetes\.io\/csi\/disk\.csi\.kvol\.io\^disk-\S+ at \/var\/lib\/kubelet\/plugins\/kubernetes\.io\/csi\/disk\.csi\.kvol\.io\/[0-9a-f]+\/globalmount/,
      "The kubelet retries with backoff and treats the mount as uncertain meanwhile; check the storage backend and the CSI driver's logs.",
    ]);

    await cluster.fault("csi-deadline-exceeded", "driver=disk.csi.kvol.io", "method=NodeStageVolume", "--heal");
    await waitFor(
      "pod db Running once NodeStageVolume answers",
      async () => (await podStatus(cluster, "db")).phase === "Running" || undefined,
      liveWaitMs,
    );
    const running = await cluster.cli(["why", "pod/db"]);
    assert.ok(running.stdout.startsWith("pod default/db: Running on node node-1"), running.stdout);
  });
});
