import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startFuseDaemon } from "../../csi/drivers/fuse/fuse-daemons.ts";
import { directoryFuseProgram } from "../../csi/drivers/fuse/fuse-program.ts";
import type { SimHost } from "../../host/sim/sim-host.ts";
import type { Clock } from "../../runtime/clock.ts";
import { Logger, MemorySink } from "../../runtime/logger.ts";
import { csiPluginName } from "../../volume/paths.ts";
import type { VolumeMounter } from "../../volume/plugin.ts";
import { VolumeSpec } from "../../volume/spec.ts";
import { simNode } from "../../volume/testing/sim-node.ts";
import type { KubeletMountedVolume } from "./cache/actual-state-of-world.ts";
import { CorruptedMountRepair, type MountedVolumesState } from "./corrupted-mounts.ts";

const agent = "csi-node/fuse.csi.kvol.io";

/** A pod path served by a FUSE daemon of the plugin's agent scope (`alive: false`: the daemon died). */
async function fuseMount(host: SimHost, clock: Clock, name: string, alive: boolean): Promise<string> {
  const stateDir = "/var/lib/kvol/csi-fuse";
  const source = `${stateDir}/${name}`;
  const mountPoint = `/var/lib/kubelet/pods/uid-a/volumes/kubernetes.io~csi/${name}/mount`;
  await host.mkdir(source, 0o755, { recursive: true });
  await host.mkdir(mountPoint, 0o750, { recursive: true });
  const daemonAgent = alive ? "csi-node/another-driver" : agent;
  const program = directoryFuseProgram("kvolfs", stateDir);
  await startFuseDaemon(host, clock, { program, agent: daemonAgent, volumeId: name, mountPoint });
  return mountPoint;
}

function mountedVolume(pluginName: string, name: string, path: string): KubeletMountedVolume {
  const mounter: VolumeMounter = {
    getPath: () => path,
    getAttributes: () => ({ readOnly: false, managed: true }),
    setUp: async () => undefined,
  };
  return {
    podName: "uid-a",
    podUID: "uid-a",
    volumeName: `${pluginName}/${name}`,
    innerVolumeSpecName: name,
    outerVolumeSpecName: `outer-${name}`,
    pluginName,
    volumeSpec: VolumeSpec.fromVolume({ name, emptyDir: {} }),
    volumeMountState: "VolumeMounted",
    mounter,
    blockVolumeMapper: undefined,
    deviceMountPath: "",
  };
}

/** The actual state as far as the repair sees it, remembering what it flagged. */
function stateWith(volumes: KubeletMountedVolume[]): MountedVolumesState & { flagged: string[] } {
  const flagged: string[] = [];
  return {
    flagged,
    getMountedVolumesForPod: (podName) => volumes.filter((volume) => volume.podName === podName),
    markVolumeRemountRequired: (_podName, volumeName) => {
      flagged.push(volumeName);
      return true;
    },
  };
}

describe("CorruptedMountRepair", () => {
  it("flags only the pod's CSI mounts whose daemon is gone", async () => {
    const fixture = await simNode();
    const host = fixture.host;
    const dead = await fuseMount(host, fixture.clock, "pv-dead", false);
    const alive = await fuseMount(host, fixture.clock, "pv-alive", true);
    const deadNotCsi = await fuseMount(host, fixture.clock, "pv-flex", false);
    host.killAgentScope(agent);
    const asw = stateWith([
      mountedVolume(csiPluginName, "pv-dead", dead),
      mountedVolume(csiPluginName, "pv-alive", alive),
      mountedVolume("kubernetes.io/flexvolume", "pv-flex", deadNotCsi),
    ]);
    const logs = new MemorySink();
    const repair = new CorruptedMountRepair({ host, asw, logger: new Logger({ clock: fixture.clock, sink: logs }) });

    const found = await repair.flagCorruptedMounts("uid-a");

    assert.deepEqual(asw.flagged, [`${csiPluginName}/pv-dead`]);
    assert.deepEqual(
      found.map((mount) => [mount.outerVolumeSpecName, mount.path]),
      [["outer-pv-dead", dead]],
    );
    assert.match(found[0]?.error ?? "", /transport endpoint is not connected/);
    assert.equal(logs.records.filter((record) => record.level === "warn").length, 1);
    assert.deepEqual(await repair.flagCorruptedMounts("uid-b"), [], "another pod's volumes are not looked at");
  });
});
