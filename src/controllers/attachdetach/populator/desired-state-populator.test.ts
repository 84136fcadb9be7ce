import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PersistentVolume, PersistentVolumeClaim, Pod } from "kubernetes-types/core/v1.js";
import { Logger, MemorySink } from "../../../runtime/logger.ts";
import { VirtualClock } from "../../../runtime/virtual-clock.ts";
import { VolumePluginManager } from "../../../volume/plugin-manager.ts";
import { inTreeVolumePlugins } from "../../../volume/plugins/in-tree-plugins.ts";
import { controllerVolumeHost } from "../../../volume/testing/sim-node.ts";
import { DesiredStateOfWorld } from "../cache/desired-state-of-world.ts";
import { DesiredStatePopulator } from "./desired-state-populator.ts";

const volume = "kvol.io/sim-disk/disk-1";
const fullRelistPeriodMs = 180_000;

const claim: PersistentVolumeClaim = {
  metadata: { namespace: "shop", name: "data", uid: "claim-uid" },
  spec: { volumeName: "data" },
  status: { phase: "Bound" },
};
const pv: PersistentVolume = {
  metadata: { name: "data" },
  spec: {
    accessModes: ["ReadWriteOnce"],
    flexVolume: { driver: "kvol.io/sim-disk", options: { diskId: "disk-1" } },
    claimRef: { namespace: "shop", name: "data", uid: "claim-uid" },
  },
};

function pod(name: string, uid: string, options: { deleting?: boolean; running?: boolean } = {}): Pod {
  return {
    metadata: {
      namespace: "shop",
      name,
      uid,
      ...(options.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
    },
    spec: {
      nodeName: "node-1",
      containers: [],
      volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data" } }],
    },
    status: {
      phase: "Running",
      containerStatuses: [
        {
          name: "c",
          image: "i",
          imageID: "",
          ready: true,
          restartCount: 0,
          state: options.running === false ? { terminated: { exitCode: 0 } } : { running: {} },
        },
      ],
    },
  };
}

function fixture(): {
  clock: VirtualClock;
  dsw: DesiredStateOfWorld;
  pods: Map<string, Pod>;
  populator: DesiredStatePopulator;
} {
  const clock = new VirtualClock();
  const logger = new Logger({ clock, sink: new MemorySink() });
  const plugins = new VolumePluginManager();
  plugins.register(inTreeVolumePlugins(), controllerVolumeHost(clock));
  const dsw = new DesiredStateOfWorld();
  dsw.addNode("node-1", false);
  const pods = new Map<string, Pod>();
  const podVolumes = {
    dsw,
    plugins,
    logger,
    listers: {
      claim: (namespace: string, name: string) => (namespace === "shop" && name === "data" ? claim : undefined),
      persistentVolume: (name: string) => (name === "data" ? pv : undefined),
    },
  };
  const populator = new DesiredStatePopulator({
    clock,
    logger,
    dsw,
    plugins,
    pods: { get: (_namespace, name) => pods.get(name), list: () => [...pods.values()] },
    podVolumes,
    fullRelistPeriodMs,
  });
  return { clock, dsw, pods, populator };
}

describe("DesiredStatePopulator", () => {
  it("adds running pods on its first pass and then only every 3 minutes", async () => {
    const { clock, dsw, pods, populator } = fixture();
    pods.set("web-a", pod("web-a", "uid-a"));
    populator.pass();
    assert.equal(dsw.volumeExists(volume, "node-1"), true);

    dsw.deletePod("uid-a", volume, "node-1");
    await clock.advanceBy(60_000);
    populator.pass();
    assert.equal(dsw.volumeExists(volume, "node-1"), false, "no relist one minute later");
    await clock.advanceBy(120_000);
    populator.pass();
    assert.equal(dsw.volumeExists(volume, "node-1"), true, "relisted after three minutes");
  });

  it("removes pods whose delete event was missed, or that were replaced under the same name", () => {
    const { dsw, pods, populator } = fixture();
    pods.set("web-a", pod("web-a", "uid-a"));
    populator.pass();
    pods.set("web-a", pod("web-a", "uid-a2"));
    populator.pass();
    assert.deepEqual(
      dsw.getPodsToAdd().map((entry) => entry.podUID),
      [],
      "the old uid is gone; the new pod waits for its own event or the next relist",
    );
  });

  it("keeps a terminating pod whose containers still run (dead node), and drops it once they stopped", () => {
    const { dsw, pods, populator } = fixture();
    pods.set("web-a", pod("web-a", "uid-a"));
    populator.pass();
    pods.set("web-a", pod("web-a", "uid-a", { deleting: true }));
    populator.pass();
    assert.equal(dsw.volumeExists(volume, "node-1"), true);
    pods.set("web-a", pod("web-a", "uid-a", { deleting: true, running: false }));
    populator.pass();
    assert.equal(dsw.volumeExists(volume, "node-1"), false);
  });
});
