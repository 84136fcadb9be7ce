import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Rng } from "../runtime/rng.ts";
import { VirtualClock } from "../runtime/virtual-clock.ts";
import type {
  AttachableVolumePlugin,
  Attacher,
  BlockVolumeMapper,
  BlockVolumeUnmapper,
  Detacher,
  DeviceMounter,
  DeviceUnmounter,
  VolumePlugin,
} from "./plugin.ts";
import { VolumePluginManager } from "./plugin-manager.ts";
import { VolumeSpec } from "./spec.ts";
import { InMemoryVolumeApi } from "./testing/in-memory-volume-api.ts";
import { RecordingLogger } from "./testing/recording-logger.ts";
import type { VolumeHost } from "./volume-host.ts";

function controllerHost(): VolumeHost {
  return { clock: new VirtualClock(), rng: new Rng(1), logger: new RecordingLogger(), api: new InMemoryVolumeApi() };
}

function unused(): never {
  throw new Error("not used in this test");
}

/** A plugin that supports specs for which `supports` is true; records init. */
function simplePlugin(name: string, supports: (spec: VolumeSpec) => boolean): VolumePlugin & { initialised: boolean } {
  return {
    name,
    initialised: false,
    init() {
      this.initialised = true;
    },
    canSupport: supports,
    requiresRemount: () => false,
    supportsMountOption: () => true,
    getVolumeName: (spec) => spec.name(),
    newMounter: unused,
    newUnmounter: unused,
    constructVolumeSpec: unused,
  };
}

/** An attachable plugin that only attaches read-write specs (attachability decided per spec). */
function attachablePlugin(name: string, supports: (spec: VolumeSpec) => boolean): AttachableVolumePlugin {
  return {
    ...simplePlugin(name, supports),
    canAttach: (spec) => !spec.readOnly,
    canDeviceMount: () => true,
    newAttacher: (): Attacher => unused(),
    newDetacher: (): Detacher => unused(),
    newDeviceMounter: (): DeviceMounter => unused(),
    newDeviceUnmounter: (): DeviceUnmounter => unused(),
    getDeviceMountRefs: unused,
  };
}

const nfsSpec = VolumeSpec.fromVolume({ name: "data", nfs: { server: "10.0.0.1", path: "/export" } });
const secretSpec = VolumeSpec.fromVolume({ name: "token", secret: { secretName: "t" } });
const diskSpec = VolumeSpec.fromPersistentVolume({
  metadata: { name: "pv-1" },
  spec: { rbd: { image: "i", monitors: [] } },
});

describe("VolumePluginManager", () => {
  it("initialises plugins and finds the one that supports a spec", () => {
    const manager = new VolumePluginManager();
    const nfs = simplePlugin("kubernetes.io/nfs", (spec) => spec.volume?.nfs !== undefined);
    const secret = simplePlugin("kubernetes.io/secret", (spec) => spec.volume?.secret !== undefined);
    manager.register([nfs, secret], controllerHost());
    assert.equal(nfs.initialised, true);
    assert.equal(manager.findPluginBySpec(nfsSpec), nfs);
    assert.equal(manager.findPluginBySpec(secretSpec), secret);
    assert.deepEqual(manager.pluginNames(), ["kubernetes.io/nfs", "kubernetes.io/secret"]);
  });

  it("says no plugin matched, or lists every plugin that did", () => {
    const manager = new VolumePluginManager();
    manager.register(
      [
        simplePlugin("kubernetes.io/nfs", () => false),
        simplePlugin("example.com/a", (s) => s.name() === "data"),
        simplePlugin("example.com/b", (s) => s.name() === "data"),
      ],
      controllerHost(),
    );
    assert.throws(() => manager.findPluginBySpec(secretSpec), { message: "no volume plugin matched" });
    assert.throws(() => manager.findPluginBySpec(nfsSpec), {
      message: "multiple volume plugins matched: example.com/a,example.com/b",
    });
  });

  it("finds plugins by name and names the missing one", () => {
    const manager = new VolumePluginManager();
    const nfs = simplePlugin("kubernetes.io/nfs", () => true);
    manager.register([nfs], controllerHost());
    assert.equal(manager.findPluginByName("kubernetes.io/nfs"), nfs);
    assert.throws(() => manager.findPluginByName("kubernetes.io/rbd"), {
      message: "no volume plugin matched name: kubernetes.io/rbd",
    });
  });

  it("returns attachable and device-mountable plugins only when they are so for this spec", () => {
    const manager = new VolumePluginManager();
    const rbd = attachablePlugin("kubernetes.io/rbd", (spec) => spec.persistentVolume?.spec?.rbd !== undefined);
    const nfs = simplePlugin("kubernetes.io/nfs", (spec) => spec.volume?.nfs !== undefined);
    manager.register([rbd, nfs], controllerHost());
    assert.equal(manager.findAttachablePluginBySpec(diskSpec), rbd);
    assert.equal(manager.findAttachablePluginBySpec(diskSpec.withReadOnly(true)), undefined);
    assert.equal(manager.findDeviceMountablePluginBySpec(diskSpec.withReadOnly(true)), rbd);
    assert.equal(manager.findAttachablePluginBySpec(nfsSpec), undefined);
    assert.equal(manager.findDeviceMountablePluginBySpec(nfsSpec), undefined);
    assert.equal(manager.findAttachablePluginByName("kubernetes.io/nfs"), undefined);
  });

  it("finds block-capable plugins", () => {
    const manager = new VolumePluginManager();
    const block = {
      ...simplePlugin("kubernetes.io/local-volume", () => true),
      newBlockVolumeMapper: (): BlockVolumeMapper => unused(),
      newBlockVolumeUnmapper: (): BlockVolumeUnmapper => unused(),
      constructBlockVolumeSpec: unused,
    };
    manager.register([block], controllerHost());
    assert.equal(manager.findMapperPluginBySpec(diskSpec), block);
  });

  it("refuses duplicate and malformed names, still registering the good plugins", () => {
    const manager = new VolumePluginManager();
    const good = simplePlugin("kubernetes.io/nfs", () => true);
    assert.throws(
      () =>
        manager.register(
          [
            good,
            simplePlugin("kubernetes.io/nfs", () => true),
            simplePlugin("Bad Name!", () => true),
            simplePlugin("", () => true),
          ],
          controllerHost(),
        ),
      {
        message:
          'volume plugin "kubernetes.io/nfs" was registered more than once; volume plugin has invalid name: "Bad Name!": must be a qualified name such as "kubernetes.io/nfs"; volume plugin has empty name',
      },
    );
    assert.equal(manager.findPluginByName("kubernetes.io/nfs"), good);
  });
});
