import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Node, PersistentVolume, Pod } from "kubernetes-types/core/v1.js";
import { notFound } from "../../api/errors.ts";
import { Logger, MemorySink } from "../../runtime/logger.ts";
import { VolumePluginManager } from "../plugin-manager.ts";
import { inTreeVolumePlugins } from "../plugins/in-tree-plugins.ts";
import { VolumeSpec } from "../spec.ts";
import { controllerVolumeHost, type SimNodeFixture, settle, simNode } from "../testing/sim-node.ts";
import type { NodeGetter, VolumeEventRecorder } from "./operation-context.ts";
import { isAlreadyExistsError } from "./operation-errors.ts";
import { OperationExecutor } from "./operation-executor.ts";
import { RecordingActualState } from "./testing/recording-actual-state.ts";
import type { AttachedVolume, MountedVolume, VolumeToAttach, VolumeToMount } from "./types.ts";

const volumeName = "kvol.io/sim-disk/disk-1";
const globalMount = "/var/lib/kubelet/plugins/kvol.io/sim-disk/mounts/disk-1";

class RecordingRecorder implements VolumeEventRecorder {
  readonly events: string[] = [];
  event(pod: Pod, type: string, reason: string, message: string): void {
    this.events.push(`${pod.metadata?.name} ${type} ${reason} ${message}`);
  }
}

class FakeNodes implements NodeGetter {
  readonly nodes = new Map<string, Node>();
  gets = 0;
  async get(_namespace: "", name: string): Promise<Node> {
    this.gets++;
    const node = this.nodes.get(name);
    if (node === undefined) throw notFound("nodes", "", name);
    return node;
  }
}

function diskPv(accessModes: string[] = ["ReadWriteOnce"]): PersistentVolume {
  return {
    metadata: { name: "pvc-1" },
    spec: { accessModes, flexVolume: { driver: "kvol.io/sim-disk", fsType: "ext4", options: { diskId: "disk-1" } } },
  };
}

function pod(name: string): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", uid: `uid-${name}` },
    spec: { containers: [] },
  };
}

interface Cluster {
  node1: SimNodeFixture;
  recorder: RecordingRecorder;
  nodes: FakeNodes;
  logs: MemorySink;
  controller: OperationExecutor;
  kubelet: OperationExecutor;
}

async function cluster(): Promise<Cluster> {
  const node1 = await simNode({ nodeName: "node-1" });
  await simNode({ nodeName: "node-2", world: node1.world });
  node1.world.disks.createDisk("disk-1", 64 << 20);
  const logs = new MemorySink();
  const logger = new Logger({ clock: node1.clock, sink: logs, level: "debug" });
  const recorder = new RecordingRecorder();
  const nodes = new FakeNodes();
  const controllerPlugins = new VolumePluginManager();
  controllerPlugins.register(
    inTreeVolumePlugins({ simDiskProvider: node1.world.disks }),
    controllerVolumeHost(node1.clock),
  );
  const nodePlugins = new VolumePluginManager();
  nodePlugins.register(inTreeVolumePlugins(), node1.volumeHost);
  const common = { recorder, nodes, clock: node1.clock, logger };
  const controller = new OperationExecutor({ ...common, plugins: controllerPlugins });
  const kubelet = new OperationExecutor({ ...common, plugins: nodePlugins, node: node1.node });
  return { node1, recorder, nodes, logs, controller, kubelet };
}

function toAttach(nodeName: string, pods: Pod[], pv = diskPv()): VolumeToAttach {
  return {
    volumeName,
    volumeSpec: VolumeSpec.fromPersistentVolume(pv),
    nodeName,
    scheduledPods: pods,
    multiAttachErrorReported: false,
  };
}

function attached(nodeName: string): AttachedVolume {
  return { volumeName, volumeSpec: VolumeSpec.fromPersistentVolume(diskPv()), nodeName, devicePath: "" };
}

function toMount(name: string, devicePath: string, pv = diskPv()): VolumeToMount {
  return {
    volumeName,
    podName: `uid-${name}`,
    pod: pod(name),
    volumeSpec: VolumeSpec.fromPersistentVolume(pv),
    outerVolumeSpecName: "data",
    pluginIsAttachable: true,
    pluginIsDeviceMountable: true,
    devicePath,
    reportedInUse: true,
  };
}

function mounted(name: string): MountedVolume {
  return {
    podName: `uid-${name}`,
    podUID: `uid-${name}`,
    volumeName,
    innerVolumeSpecName: "pvc-1",
    outerVolumeSpecName: "data",
    pluginName: "kvol.io/sim-disk",
    volumeSpec: VolumeSpec.fromPersistentVolume(diskPv()),
  };
}

async function idle(c: Cluster): Promise<void> {
  await settle(c.node1.clock, Promise.all([c.controller.waitForIdle(), c.kubelet.waitForIdle()]));
}

describe("OperationExecutor: attach and detach (controller side)", () => {
  it("attaches, tells every scheduled pod, and records the device path", async () => {
    const c = await cluster();
    const asw = new RecordingActualState();
    assert.equal(c.controller.attachVolume(toAttach("node-1", [pod("web-a"), pod("web-b")]), asw), undefined);
    await idle(c);
    assert.deepEqual(c.recorder.events, [
      'web-a Normal SuccessfulAttachVolume AttachVolume.Attach succeeded for volume "pvc-1" ',
      'web-b Normal SuccessfulAttachVolume AttachVolume.Attach succeeded for volume "pvc-1" ',
    ]);
    assert.deepEqual(asw.attachments.get(`${volumeName}@node-1`), {
      devicePath: "/dev/disk/by-id/virtio-disk-1",
      state: "attached",
      reported: true,
    });
  });

  it("marks a failed attach uncertain, tells the pods, and backs off", async () => {
    const c = await cluster();
    c.node1.world.disks.setFaults("disk-1", { attachError: "quota exceeded" });
    const asw = new RecordingActualState();
    c.controller.attachVolume(toAttach("node-1", [pod("web-a")]), asw);
    await idle(c);
    assert.deepEqual(c.recorder.events, [
      'web-a Warning FailedAttachVolume AttachVolume.Attach failed for volume "pvc-1" : attaching disk disk-1 to node node-1 failed: quota exceeded',
    ]);
    assert.equal(asw.attachments.get(`${volumeName}@node-1`)?.state, "uncertain");
    assert.match(
      c.controller.attachVolume(toAttach("node-1", [pod("web-a")]), asw)?.message ?? "",
      /No retries permitted/,
    );
  });

  it("runs one attach or detach at a time per RWO volume, cluster-wide, and per node for RWX", async () => {
    const c = await cluster();
    const asw = new RecordingActualState();
    c.controller.attachVolume(toAttach("node-1", []), asw);
    assert.ok(isAlreadyExistsError(c.controller.attachVolume(toAttach("node-2", []), asw)));
    assert.ok(isAlreadyExistsError(c.controller.detachVolume(attached("node-2"), false, asw)));
    assert.equal(c.controller.isOperationPending(volumeName, "", ""), true);
    await idle(c);
    const shared = diskPv(["ReadWriteMany"]);
    c.node1.world.disks.createDisk("disk-2", 1 << 20, { multiAttach: true });
    const rwx = (node: string): VolumeToAttach => ({
      ...toAttach(node, [], shared),
      volumeName: "kvol.io/sim-disk/disk-2",
      volumeSpec: VolumeSpec.fromPersistentVolume({
        ...shared,
        spec: { ...shared.spec, flexVolume: { driver: "kvol.io/sim-disk", options: { diskId: "disk-2" } } },
      }),
    });
    assert.equal(c.controller.attachVolume(rwx("node-1"), asw), undefined);
    assert.equal(c.controller.attachVolume(rwx("node-2"), asw), undefined);
    await idle(c);
    assert.equal(asw.attachments.get("kvol.io/sim-disk/disk-2@node-2")?.state, "attached");
  });

  it("refuses a safe detach while the node reports the volume in use, and leaves it uncertain", async () => {
    const c = await cluster();
    const asw = new RecordingActualState();
    c.controller.attachVolume(toAttach("node-1", []), asw);
    await idle(c);
    c.nodes.nodes.set("node-1", { metadata: { name: "node-1" }, status: { volumesInUse: [volumeName] } });
    c.controller.detachVolume(attached("node-1"), true, asw);
    await idle(c);
    assert.equal(asw.attachments.get(`${volumeName}@node-1`)?.state, "uncertain");
    assert.equal(c.node1.world.disks.attachedTo("node-1").length, 1, "the disk stays attached");
    assert.ok(
      c.logs
        .lines()
        .some((line) =>
          line.includes(
            'DetachVolume failed for volume "pvc-1" (UniqueName: "kvol.io/sim-disk/disk-1") on node "node-1" : volume is still in use by node, according to Node status',
          ),
        ),
      c.logs.lines().join("\n"),
    );
  });

  it("detaches without the safety check when the Node object is gone", async () => {
    const c = await cluster();
    const asw = new RecordingActualState();
    c.controller.attachVolume(toAttach("node-1", []), asw);
    await idle(c);
    c.controller.detachVolume(attached("node-1"), true, asw);
    await idle(c);
    assert.equal(asw.attachments.has(`${volumeName}@node-1`), false);
    assert.equal(c.node1.world.disks.attachedTo("node-1").length, 0);
  });

  it("detaches by unique name alone when the spec is unknown (after a controller restart)", async () => {
    const c = await cluster();
    const asw = new RecordingActualState();
    c.controller.attachVolume(toAttach("node-1", []), asw);
    await idle(c);
    c.controller.detachVolume({ ...attached("node-1"), volumeSpec: undefined }, false, asw);
    await idle(c);
    assert.equal(c.node1.world.disks.attachedTo("node-1").length, 0);
    assert.deepEqual(asw.calls.at(-1), `markVolumeAsDetached ${volumeName} node-1`);
  });

  it("forgets attachments the provider no longer has when verifying a node", async () => {
    const c = await cluster();
    const asw = new RecordingActualState();
    c.controller.attachVolume(toAttach("node-1", []), asw);
    await idle(c);
    c.controller.verifyVolumesAreAttachedPerNode([attached("node-1")], "node-1", asw);
    await idle(c);
    assert.equal(asw.attachments.has(`${volumeName}@node-1`), true);
    await settle(c.node1.clock, c.node1.world.disks.detach("disk-1", "node-1"));
    c.controller.verifyVolumesAreAttachedPerNode([attached("node-1")], "node-1", asw);
    await idle(c);
    assert.equal(asw.attachments.has(`${volumeName}@node-1`), false);
  });
});

describe("OperationExecutor: mount and unmount (kubelet side)", () => {
  async function attachedCluster(): Promise<{ c: Cluster; asw: RecordingActualState }> {
    const c = await cluster();
    const controllerAsw = new RecordingActualState();
    c.controller.attachVolume(toAttach("node-1", []), controllerAsw);
    await idle(c);
    c.recorder.events.length = 0;
    c.nodes.nodes.set("node-1", {
      metadata: { name: "node-1" },
      status: { volumesAttached: [{ name: volumeName, devicePath: "/dev/disk/by-id/virtio-disk-1" }] },
    });
    return { c, asw: new RecordingActualState() };
  }

  it("verifies the controller's attach, mounts the device once and the pod's volume, then tears both down", async () => {
    const { c, asw } = await attachedCluster();
    assert.equal(c.kubelet.verifyControllerAttachedVolume(toMount("web-a", ""), "node-1", asw), undefined);
    await idle(c);
    const devicePath = asw.attachments.get(`${volumeName}@node-1`)?.devicePath ?? "";
    assert.equal(devicePath, "/dev/disk/by-id/virtio-disk-1");

    c.kubelet.mountVolume(600_000, toMount("web-a", devicePath), asw, false);
    await idle(c);
    const podDir = "/var/lib/kubelet/pods/uid-web-a/volumes/kvol.io~sim-disk/pvc-1";
    const mountPoints = (await c.node1.host.mountInfo()).map((mount) => mount.mountPoint);
    assert.ok(mountPoints.includes(globalMount) && mountPoints.includes(podDir), mountPoints.join(" "));
    assert.equal(asw.getVolumeMountState(volumeName, "uid-web-a"), "VolumeMounted");
    assert.deepEqual(c.recorder.events, [], "a filesystem mount emits no event");

    c.kubelet.unmountVolume(mounted("web-a"), asw);
    await idle(c);
    c.kubelet.unmountDevice(
      { ...attached("node-1"), devicePath, pluginName: "kvol.io/sim-disk", deviceMountPath: globalMount },
      asw,
    );
    await idle(c);
    assert.equal(asw.getDeviceMountState(volumeName), "DeviceNotMounted");
    const left = (await c.node1.host.mountInfo()).map((mount) => mount.mountPoint);
    assert.ok(!left.includes(globalMount) && !left.includes(podDir), left.join(" "));
  });

  it("refuses to unmount the device while a pod still bind-mounts it", async () => {
    const { c, asw } = await attachedCluster();
    c.kubelet.mountVolume(600_000, toMount("web-a", "/dev/disk/by-id/virtio-disk-1"), asw, false);
    await idle(c);
    c.kubelet.unmountDevice(
      { ...attached("node-1"), pluginName: "kvol.io/sim-disk", deviceMountPath: globalMount },
      asw,
    );
    await idle(c);
    assert.equal(asw.getDeviceMountState(volumeName), "DeviceGloballyMounted");
    assert.ok(c.logs.lines().some((line) => line.includes("is still mounted by other references")));
  });

  it("reports a failed mount as a FailedMount event with Kubernetes' wording", async () => {
    const c = await cluster();
    const asw = new RecordingActualState();
    c.kubelet.mountVolume(2_000, toMount("web-a", ""), asw, false);
    await idle(c);
    assert.deepEqual(c.recorder.events, [
      'web-a Warning FailedMount MountVolume.WaitForAttach failed for volume "pvc-1" : Could not find attached disk "disk-1". Timeout waiting for mount paths to be created.',
    ]);
    assert.equal(asw.getVolumeMountState(volumeName, "uid-web-a"), "VolumeNotMounted");
  });

  it("refuses a second pod of a ReadWriteOncePod volume without backoff", async () => {
    const { c, asw } = await attachedCluster();
    const pv = diskPv(["ReadWriteOncePod"]);
    c.kubelet.mountVolume(600_000, toMount("web-a", "/dev/disk/by-id/virtio-disk-1", pv), asw, false);
    await idle(c);
    c.kubelet.mountVolume(600_000, toMount("web-b", "/dev/disk/by-id/virtio-disk-1", pv), asw, false);
    await idle(c);
    assert.deepEqual(c.recorder.events, [
      'web-b Warning FailedMount MountVolume.SetUp failed for volume "pvc-1" : volume uses the ReadWriteOncePod access mode and is already in use by another pod',
    ]);
    assert.equal(c.kubelet.mountVolume(600_000, toMount("web-b", "", pv), asw, false), undefined, "no backoff");
  });

  it("waits for the volume in the node's status: a cached miss costs no API call, a live miss is an error", async () => {
    const c = await cluster();
    const asw = new RecordingActualState();
    const cachedNode: Node = { metadata: { name: "node-1" }, status: {} };
    const kubelet = new OperationExecutor({
      plugins: new VolumePluginManager(),
      recorder: c.recorder,
      nodes: c.nodes,
      clock: c.node1.clock,
      logger: new Logger({ clock: c.node1.clock, sink: c.logs }),
      cachedNode: () => cachedNode,
    });
    assert.equal(
      kubelet.verifyControllerAttachedVolume(toMount("web-a", ""), "node-1", asw)?.message,
      `volume ${volumeName} is not yet in node's status`,
    );
    assert.equal(c.nodes.gets, 0);
    c.kubelet.verifyControllerAttachedVolume(toMount("web-a", ""), "node-1", asw);
    await idle(c);
    assert.ok(
      c.logs.lines().some((line) => line.includes("Node not found") || line.includes("fetching node from API server")),
    );
    c.nodes.nodes.set("node-1", { metadata: { name: "node-1" }, status: {} });
    await c.node1.clock.advanceBy(1_000);
    c.kubelet.verifyControllerAttachedVolume(toMount("web-a", ""), "node-1", asw);
    await idle(c);
    assert.ok(c.logs.lines().some((line) => line.includes("Volume not attached according to node status for volume")));
    assert.equal(asw.attachments.size, 0);
  });

  it("maps a raw block volume into the pod, tells it so, and releases it again", async () => {
    const { c, asw } = await attachedCluster();
    const blockPv: PersistentVolume = { ...diskPv(), spec: { ...diskPv().spec, volumeMode: "Block" } };
    const volumeToMap = toMount("web-a", "/dev/disk/by-id/virtio-disk-1", blockPv);
    assert.equal(c.kubelet.mountVolume(600_000, volumeToMap, asw, false), undefined);
    await idle(c);
    const globalMapPath = "/var/lib/kubelet/plugins/kvol.io/sim-disk/volumeDevices/disk-1";
    assert.deepEqual(c.recorder.events, [
      `web-a Normal SuccessfulMountVolume MapVolume.MapPodDevice succeeded for volume "pvc-1" globalMapPath "${globalMapPath}"`,
      'web-a Normal SuccessfulMountVolume MapVolume.MapPodDevice succeeded for volume "pvc-1" volumeMapPath "/var/lib/kubelet/pods/uid-web-a/volumeDevices/kvol.io~sim-disk"',
    ]);
    const podLink = "/var/lib/kubelet/pods/uid-web-a/volumeDevices/kvol.io~sim-disk/pvc-1";
    assert.ok((await c.node1.host.readlink(podLink)).startsWith("/dev/"));
    assert.equal(asw.getVolumeMountState(volumeName, "uid-web-a"), "VolumeMounted");
    assert.equal(asw.getDeviceMountState(volumeName), "DeviceGloballyMounted");

    const mappedVolume = { ...mounted("web-a"), volumeSpec: VolumeSpec.fromPersistentVolume(blockPv) };
    c.kubelet.unmountVolume(mappedVolume, asw);
    await idle(c);
    assert.equal(asw.getVolumeMountState(volumeName, "uid-web-a"), "VolumeNotMounted");
    await assert.rejects(c.node1.host.readlink(podLink), { code: "ENOENT" });
    c.kubelet.unmountDevice(
      {
        ...attached("node-1"),
        volumeSpec: VolumeSpec.fromPersistentVolume(blockPv),
        devicePath: "/dev/disk/by-id/virtio-disk-1",
        pluginName: "kvol.io/sim-disk",
        deviceMountPath: globalMapPath,
      },
      asw,
    );
    await idle(c);
    assert.equal(asw.getDeviceMountState(volumeName), "DeviceNotMounted");
    await assert.rejects(c.node1.host.stat(globalMapPath), /no such file or directory/);
  });
});
