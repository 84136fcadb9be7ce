import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PersistentVolume, Pod } from "kubernetes-types/core/v1.js";
import { mapBlockVolume, unmapBlockVolume, unmapDeviceForAllPods } from "../../block/map-block-volume.ts";
import { VolumeSpec } from "../../spec.ts";
import { commandLine } from "../../testing/recording-host.ts";
import { type SimNodeFixture, settle, simNode } from "../../testing/sim-node.ts";
import { uniqueVolumeNameFromSpec } from "../../unique-names.ts";
import { RbdPlugin } from "./rbd-plugin.ts";

const globalMount = "/var/lib/kubelet/plugins/kubernetes.io/rbd/mounts/sock_shop-image-user-pv";

function pod(uid: string): Pod {
  return { metadata: { name: `user-db-${uid}`, namespace: "sock-shop", uid }, spec: { containers: [] } };
}

/** The PV of seed 004. */
function userPv(fixture: SimNodeFixture, accessModes: string[] = ["ReadWriteOnce"]): VolumeSpec {
  const pv: PersistentVolume = {
    metadata: { name: "user-pv" },
    spec: {
      capacity: { storage: "1Gi" },
      accessModes,
      rbd: {
        monitors: [...fixture.world.rbd.monitors],
        pool: "sock_shop",
        image: "user-pv",
        user: "admin",
        secretRef: { name: "ceph-secret", namespace: "sock-shop" },
        fsType: "ext4",
        readOnly: false,
      },
    },
  };
  return VolumeSpec.fromPersistentVolume(pv);
}

async function cluster(): Promise<{ node1: SimNodeFixture; node2: SimNodeFixture }> {
  const node1 = await simNode({ nodeName: "node-1" });
  const node2 = await simNode({ nodeName: "node-2", world: node1.world });
  node1.world.rbd.createImage("sock_shop", "user-pv", 64 << 20);
  for (const fixture of [node1, node2]) {
    fixture.api.putSecret({
      metadata: { name: "ceph-secret", namespace: "sock-shop" },
      data: { key: Buffer.from("AQBRadmin==").toString("base64") },
    });
  }
  return { node1, node2 };
}

function rbdPlugin(fixture: SimNodeFixture): RbdPlugin {
  const plugin = new RbdPlugin();
  plugin.init(fixture.volumeHost);
  return plugin;
}

/** What the kubelet does to start a pod using the volume: wait for attach, mount device, set up. */
async function mountForPod(fixture: SimNodeFixture, spec: VolumeSpec, uid: string): Promise<string> {
  const plugin = rbdPlugin(fixture);
  const attacher = plugin.newAttacher();
  const devicePath = await settle(fixture.clock, attacher.waitForAttach(spec, "", pod(uid), 600_000));
  const deviceMountPath = await attacher.getDeviceMountPath(spec);
  await settle(fixture.clock, attacher.mountDevice(spec, devicePath, deviceMountPath, {}));
  const mounter = plugin.newMounter(spec, pod(uid));
  await settle(fixture.clock, mounter.setUp({}));
  return mounter.getPath();
}

async function unmountForPod(fixture: SimNodeFixture, uid: string): Promise<void> {
  const plugin = rbdPlugin(fixture);
  await settle(fixture.clock, plugin.newUnmounter("user-pv", uid).tearDown());
  await settle(fixture.clock, plugin.newDetacher().unmountDevice(globalMount));
}

describe("rbd attach on the node", () => {
  it("records the attachment in the controller and maps the image on the node", async () => {
    const { node1 } = await cluster();
    const spec = userPv(node1);
    const plugin = rbdPlugin(node1);
    assert.equal(uniqueVolumeNameFromSpec(plugin, spec), "kubernetes.io/rbd/sock_shop:user-pv");
    assert.equal(await plugin.newAttacher().attach(spec, "node-1"), "");
    assert.deepEqual(await plugin.newAttacher().volumesAreAttached([spec], "node-1"), new Map([["user-pv", true]]));
    const podDir = await mountForPod(node1, spec, "pod-a");
    assert.equal(podDir, "/var/lib/kubelet/pods/pod-a/volumes/kubernetes.io~rbd/user-pv");
    assert.ok(
      node1.commands
        .map(commandLine)
        .includes(`rbd map sock_shop/user-pv --id admin -m ${node1.world.rbd.monitors.join(",")} --key=AQBRadmin==`),
    );
    assert.equal((await node1.host.mountInfo()).find((mount) => mount.mountPoint === globalMount)?.fsType, "ext4");
    assert.equal(node1.world.rbd.image("sock_shop", "user-pv")?.watchers.length, 1);
  });

  it("unmaps the image at UnmountDevice, dropping the node's watch", async () => {
    const { node1 } = await cluster();
    await mountForPod(node1, userPv(node1), "pod-a");
    await unmountForPod(node1, "pod-a");
    assert.equal(node1.world.rbd.image("sock_shop", "user-pv")?.watchers.length, 0);
    assert.equal(
      node1.host.blockDevices().some((device) => device.kind === "rbd"),
      false,
    );
    await assert.rejects(node1.host.stat(globalMount), /no such file or directory/);
  });

  it("keeps the bytes across unmount, unmap, map on another node and mount", async () => {
    const { node1, node2 } = await cluster();
    const dir = await mountForPod(node1, userPv(node1), "pod-a");
    await node1.host.writeFile(`${dir}/users.db`, "alice,bob");
    await unmountForPod(node1, "pod-a");
    const otherDir = await mountForPod(node2, userPv(node2), "pod-b");
    assert.equal(Buffer.from(await node2.host.readFile(`${otherDir}/users.db`)).toString(), "alice,bob");
    assert.equal(node2.commands.filter((command) => command.command.startsWith("mkfs")).length, 0, "no reformat");
  });
});

describe("rbd exclusivity (seed 004)", () => {
  it("refuses a second map while another node watches the image, after backing off about 49 s", async () => {
    const { node1, node2 } = await cluster();
    await mountForPod(node1, userPv(node1), "pod-a");
    const started = node2.clock.now();
    await assert.rejects(rbdWaitForAttach(node2, userPv(node2), "pod-b"), {
      message: "rbd image sock_shop/user-pv is still being used",
    });
    const waitedMs = node2.clock.now() - started;
    assert.ok(waitedMs > 45_000 && waitedMs < 55_000, `waited ${waitedMs} ms`);
    const statusChecks = node2.commands.filter((command) => command.args[0] === "status").length;
    assert.equal(statusChecks, 10);
    assert.equal(
      node2.commands.some((command) => command.args[0] === "map"),
      false,
      "never mapped",
    );
  });

  it("stays exclusive for a ReadWriteMany PV", async () => {
    const { node1, node2 } = await cluster();
    await mountForPod(node1, userPv(node1, ["ReadWriteMany"]), "pod-a");
    await assert.rejects(rbdWaitForAttach(node2, userPv(node2, ["ReadWriteMany"]), "pod-b"), {
      message: "rbd image sock_shop/user-pv is still being used",
    });
  });

  it("skips the check for a ReadOnlyMany-only PV", async () => {
    const { node1, node2 } = await cluster();
    await mountForPod(node1, userPv(node1, ["ReadOnlyMany"]), "pod-a");
    const device = await rbdWaitForAttach(node2, userPv(node2, ["ReadOnlyMany"]), "pod-b");
    assert.match(device, /^\/dev\/rbd\d+$/);
    const statusChecks = node2.commands.filter((command) => command.args[0] === "status").length;
    assert.equal(statusChecks, 1, "status is read once and its watchers are ignored");
  });

  it("maps once a dead node's watch has expired", async () => {
    const { node1, node2 } = await cluster();
    await mountForPod(node1, userPv(node1), "pod-a");
    // The node dies with the image mapped: Ceph drops its watch after the 30 s watch timeout.
    node1.host.powerOff();
    const device = await rbdWaitForAttach(node2, userPv(node2), "pod-b");
    assert.match(device, /^\/dev\/rbd\d+$/);
  });
});

describe("rbd raw block mode", () => {
  it("maps the image into a pod and unmaps the image once no pod uses it", async () => {
    const { node1 } = await cluster();
    const plugin = rbdPlugin(node1);
    const spec = userPv(node1);
    const device = await rbdWaitForAttach(node1, spec, "pod-a");
    const mapper = plugin.newBlockVolumeMapper(spec, pod("pod-a"));
    const globalMapPath = await mapper.getGlobalMapPath(spec);
    assert.equal(globalMapPath, "/var/lib/kubelet/plugins/kubernetes.io/rbd/volumeDevices/sock_shop-image-user-pv");
    const { dir, linkName } = mapper.getPodDeviceMapPath();
    const paths = { globalMapPath, podDeviceMapPath: dir, volumeMapName: linkName, podUID: "pod-a" };
    const context = { host: node1.node.host, mounter: node1.mounter, logger: node1.logger };
    await settle(node1.clock, mapBlockVolume(context, device, paths));
    assert.equal(
      await node1.host.readlink("/var/lib/kubelet/pods/pod-a/volumeDevices/kubernetes.io~rbd/user-pv"),
      device,
    );

    await settle(node1.clock, unmapBlockVolume(context, paths));
    const unmapper = plugin.newBlockVolumeUnmapper("user-pv", "pod-a");
    await settle(
      node1.clock,
      unmapDeviceForAllPods(
        context,
        globalMapPath,
        device,
        () => unmapper.tearDownDevice?.(globalMapPath, device) ?? Promise.resolve(),
      ),
    );
    assert.equal(node1.world.rbd.image("sock_shop", "user-pv")?.watchers.length, 0);
    assert.equal(node1.host.blockDevices().length, 0, "neither the rbd device nor a loop device is left");
  });
});

describe("rbd errors", () => {
  it("refuses to rebuild a block volume whose pod has no device mapped on the node", async () => {
    const { node1 } = await cluster();
    const mapPath = "/var/lib/kubelet/pods/pod-a/volumeDevices/kubernetes.io~rbd/user-pv";
    await assert.rejects(rbdPlugin(node1).constructBlockVolumeSpec("pod-a", "user-pv", mapPath), {
      message:
        'rbd: cannot find the global map path of block volume "user-pv" for pod "pod-a": no device of the pod is mounted under /var/lib/kubelet/plugins/kubernetes.io/rbd/volumeDevices',
    });
  });

  it("names the missing Secret", async () => {
    const { node1 } = await cluster();
    node1.api.secrets.clear();
    await assert.rejects(rbdWaitForAttach(node1, userPv(node1), "pod-a"), {
      message: 'couldn\'t get secret sock-shop/ceph-secret err: secrets "ceph-secret" not found',
    });
  });

  it("reports rbd's output when the image does not exist", async () => {
    const { node1 } = await cluster();
    node1.world.rbd.deleteImage("sock_shop", "user-pv");
    await assert.rejects(rbdWaitForAttach(node1, userPv(node1), "pod-a"), {
      message:
        "fail to check rbd image status with: (exit status 2), rbd output: (rbd: error opening image user-pv: (2) No such file or directory\n)",
    });
  });

  it("reports a failed map with rbd's output (a fenced node)", async () => {
    const { node1 } = await cluster();
    await mountForPod(node1, userPv(node1), "pod-a");
    await unmountForPod(node1, "pod-a");
    node1.world.fenceNode("node-1");
    await assert.rejects(rbdWaitForAttach(node1, userPv(node1), "pod-b"), {
      message:
        "rbd: map failed exit status 108, rbd output: rbd: sysfs write failed\n" +
        "rbd: map failed: (108) Cannot send after transport endpoint shutdown\n",
    });
  });

  it("refuses SetUp before the device is mounted on the node", async () => {
    const { node1 } = await cluster();
    await assert.rejects(settle(node1.clock, rbdPlugin(node1).newMounter(userPv(node1), pod("pod-a")).setUp({})), {
      message: `no device is mounted at ${globalMount}`,
    });
  });
});

function rbdWaitForAttach(fixture: SimNodeFixture, spec: VolumeSpec, uid: string): Promise<string> {
  return settle(fixture.clock, rbdPlugin(fixture).newAttacher().waitForAttach(spec, "", pod(uid), 600_000));
}
