import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CSINode, PersistentVolume, PersistentVolumeClaim, Pod, VolumeAttachment } from "../../api/objects.ts";
import { VolumeLimits } from "./volume-limits.ts";

const disk = "disk.csi.kvol.io";
const hostpath = "hostpath.csi.kvol.io";

function csiNode(limits: Record<string, number | undefined>): CSINode {
  return {
    metadata: { name: "node-a" },
    spec: {
      drivers: Object.entries(limits).map(([name, count]) => ({
        name,
        nodeID: "node-a",
        ...(count === undefined ? {} : { allocatable: { count } }),
      })),
    },
  };
}

function pod(name: string, claims: string[], nodeName?: string): Pod {
  return {
    metadata: { name, namespace: "default", uid: `uid-${name}` },
    spec: {
      ...(nodeName === undefined ? {} : { nodeName }),
      containers: [{ name: "app", image: "busybox" }],
      volumes: claims.map((claimName) => ({ name: claimName, persistentVolumeClaim: { claimName } })),
    },
  };
}

function boundClaim(name: string, driver = disk): { claim: PersistentVolumeClaim; volume: PersistentVolume } {
  return {
    claim: { metadata: { name, namespace: "default" }, spec: { volumeName: `pv-${name}`, storageClassName: "fast" } },
    volume: { metadata: { name: `pv-${name}` }, spec: { csi: { driver, volumeHandle: `vol-${name}` } } },
  };
}

function attachment(volumeName: string, attacher = disk): VolumeAttachment {
  return {
    metadata: { name: `csi-${volumeName}` },
    spec: { attacher, nodeName: "node-a", source: { persistentVolumeName: volumeName } },
  };
}

interface World {
  csiNode?: CSINode;
  pods?: Pod[];
  attachments?: VolumeAttachment[];
  bound?: string[];
  hostpathBound?: string[];
  unbound?: string[];
}

function limitsFor(world: World): VolumeLimits {
  const claims = new Map<string, PersistentVolumeClaim>();
  const volumes = new Map<string, PersistentVolume>();
  for (const [names, driver] of [
    [world.bound ?? [], disk],
    [world.hostpathBound ?? [], hostpath],
  ] as const) {
    for (const name of names) {
      const { claim, volume } = boundClaim(name, driver);
      claims.set(name, claim);
      volumes.set(volume.metadata?.name ?? "", volume);
    }
  }
  for (const name of world.unbound ?? []) {
    claims.set(name, { metadata: { name, namespace: "default" }, spec: { storageClassName: "fast" } });
  }
  return new VolumeLimits(
    {
      csiNode: () => world.csiNode,
      podsOnNode: () => world.pods ?? [],
      attachmentsOnNode: () => world.attachments ?? [],
      claim: (_namespace, name) => claims.get(name),
      volume: (name) => volumes.get(name),
      storageClassProvisioner: (name) => (name === "fast" ? disk : undefined),
    },
    "0123456789abcdef",
  );
}

const exceeded = ["node(s) exceed max volume count"];

describe("NodeVolumeLimits", () => {
  it("refuses a pod whose new volume would go over the driver's allocatable count, and says how many of how many", () => {
    const limits = limitsFor({
      csiNode: csiNode({ [disk]: 2 }),
      bound: ["a", "b", "c"],
      pods: [pod("one", ["a"], "node-a"), pod("two", ["b"], "node-a")],
    });
    const newPod = pod("three", ["c"]);
    assert.deepEqual(limits.reasons(newPod, "node-a"), exceeded);
    assert.deepEqual(limits.driverCounts(newPod, "node-a"), [{ driver: disk, attached: 2, added: 1, limit: 2 }]);
  });

  it("takes a pod that still fits, and one that shares a volume the node already has", () => {
    const world = { csiNode: csiNode({ [disk]: 2 }), bound: ["a", "b"], pods: [pod("one", ["a"], "node-a")] };
    assert.deepEqual(limitsFor(world).reasons(pod("two", ["b"]), "node-a"), []);
    const full = { ...world, pods: [pod("one", ["a"], "node-a"), pod("two", ["b"], "node-a")] };
    assert.deepEqual(limitsFor(full).reasons(pod("reader", ["a"]), "node-a"), [], "the shared volume costs nothing");
  });

  it("counts a VolumeAttachment whose pod is gone, and an attached volume of a pod on the node only once", () => {
    const world = {
      csiNode: csiNode({ [disk]: 2 }),
      bound: ["a", "b", "c"],
      pods: [pod("one", ["a"], "node-a")],
      attachments: [attachment("pv-a"), attachment("pv-b")],
    };
    const newPod = pod("three", ["c"]);
    assert.deepEqual(limitsFor(world).driverCounts(newPod, "node-a"), [
      { driver: disk, attached: 2, added: 1, limit: 2 },
    ]);
    assert.deepEqual(limitsFor(world).reasons(newPod, "node-a"), exceeded);
    assert.deepEqual(limitsFor({ ...world, attachments: [attachment("pv-a")] }).reasons(newPod, "node-a"), []);
  });

  it("counts an unbound claim against its class's provisioner", () => {
    const world = {
      csiNode: csiNode({ [disk]: 1 }),
      bound: ["a"],
      unbound: ["new"],
      pods: [pod("one", ["a"], "node-a")],
    };
    assert.deepEqual(limitsFor(world).reasons(pod("two", ["new"]), "node-a"), exceeded);
  });

  it("counts each driver against its own limit only", () => {
    const world = {
      csiNode: csiNode({ [disk]: 1, [hostpath]: 5 }),
      bound: ["a"],
      hostpathBound: ["h1", "h2"],
      pods: [pod("one", ["a"], "node-a")],
    };
    assert.deepEqual(limitsFor(world).reasons(pod("two", ["h1", "h2"]), "node-a"), []);
  });

  it("has no limit without a count, without a CSINode, or for a pod without claims", () => {
    const pods = [pod("one", ["a"], "node-a")];
    assert.deepEqual(
      limitsFor({ csiNode: csiNode({ [disk]: undefined }), bound: ["a", "b"], pods }).reasons(
        pod("two", ["b"]),
        "node-a",
      ),
      [],
    );
    assert.deepEqual(limitsFor({ bound: ["a", "b"], pods }).reasons(pod("two", ["b"]), "node-a"), []);
    const full = { csiNode: csiNode({ [disk]: 0 }), bound: ["a"], pods };
    assert.deepEqual(limitsFor(full).reasons(pod("plain", []), "node-a"), []);
    assert.deepEqual(limitsFor(full).reasons(pod("two", ["a"]), "node-a"), [], "only volumes it adds are counted");
  });

  describe("with each node's counts cached between pods", () => {
    /** A world the test changes, and a cached VolumeLimits told of each change as the scheduler tells it. */
    function cachedWorld() {
      const claims = new Map<string, PersistentVolumeClaim>();
      const volumes = new Map<string, PersistentVolume>();
      const podsOn: Pod[] = [];
      const attachments: VolumeAttachment[] = [];
      const limits = new VolumeLimits(
        {
          csiNode: () => csiNode({ [disk]: 2 }),
          podsOnNode: () => podsOn,
          attachmentsOnNode: () => attachments,
          claim: (_namespace, name) => claims.get(name),
          volume: (name) => volumes.get(name),
          storageClassProvisioner: (name) => (name === "fast" ? disk : undefined),
        },
        "0123456789abcdef",
        { cached: true },
      );
      const bind = (name: string) => {
        const { claim, volume } = boundClaim(name);
        claims.set(name, claim);
        volumes.set(volume.metadata?.name ?? "", volume);
        limits.claimChanged(`default/${name}`);
        limits.volumeChanged(volume.metadata?.name ?? "");
      };
      return { claims, volumes, podsOn, attachments, limits, bind };
    }

    it("sees a pod bound to the node once told, and frees its room when it leaves", () => {
      const world = cachedWorld();
      for (const name of ["a", "b", "c"]) world.bind(name);
      world.podsOn.push(Object.freeze(pod("one", ["a"], "node-a")));
      const three = Object.freeze(pod("three", ["c"]));
      assert.deepEqual(world.limits.reasons(three, "node-a"), [], "one volume of two on the node");
      world.podsOn.push(Object.freeze(pod("two", ["b"], "node-a")));
      world.limits.nodeChanged("node-a");
      assert.deepEqual(world.limits.reasons(three, "node-a"), exceeded);
      world.podsOn.splice(0, 1);
      world.limits.nodeChanged("node-a");
      assert.deepEqual(world.limits.driverCounts(three, "node-a"), [{ driver: disk, attached: 1, added: 1, limit: 2 }]);
    });

    it("recounts a claim that gets its volume, so a VolumeAttachment of that volume is not counted twice", () => {
      const world = cachedWorld();
      world.bind("c");
      world.claims.set("a", { metadata: { name: "a", namespace: "default" }, spec: { storageClassName: "fast" } });
      world.podsOn.push(Object.freeze(pod("one", ["a"], "node-a")));
      // The volume is provisioned and attached before the claim's binding lands.
      const { volume } = boundClaim("a");
      world.volumes.set(volume.metadata?.name ?? "", volume);
      world.attachments.push(attachment(volume.metadata?.name ?? ""));
      world.limits.nodeChanged("node-a");
      const three = Object.freeze(pod("three", ["c"]));
      // Unbound, claim a is a placeholder and its volume's attachment a second volume: 2 + 1 > 2.
      assert.deepEqual(world.limits.reasons(three, "node-a"), exceeded);
      world.bind("a");
      assert.deepEqual(world.limits.driverCounts(three, "node-a"), [{ driver: disk, attached: 1, added: 1, limit: 2 }]);
    });

    it("counts a pod evaluated on the node it is already counted on apart from itself", () => {
      const world = cachedWorld();
      for (const name of ["a", "b"]) world.bind(name);
      const one = Object.freeze(pod("one", ["a"], "node-a"));
      world.podsOn.push(one, Object.freeze(pod("two", ["b"], "node-a")));
      assert.deepEqual(world.limits.driverCounts(Object.freeze(pod("three", ["a"])), "node-a"), []);
      assert.deepEqual(world.limits.driverCounts(one, "node-a"), [{ driver: disk, attached: 1, added: 1, limit: 2 }]);
    });

    it("resolves the same pod's claims again once a claim changes", () => {
      const world = cachedWorld();
      world.bind("a");
      world.podsOn.push(Object.freeze(pod("one", ["a"], "node-a")));
      const three = Object.freeze(pod("three", ["c"]));
      assert.deepEqual(world.limits.driverCounts(three, "node-a"), [], "claim c does not exist yet");
      world.bind("c");
      assert.deepEqual(world.limits.driverCounts(three, "node-a"), [{ driver: disk, attached: 1, added: 1, limit: 2 }]);
    });
  });
});
