import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expectedVolumeNames, podVolumeNames } from "./pod-volume-names.ts";

describe("podVolumeNames", () => {
  it("collects mounts and devices of init, regular and ephemeral containers", () => {
    const pod = {
      spec: {
        initContainers: [{ name: "init", volumeMounts: [{ name: "seed", mountPath: "/seed" }] }],
        containers: [
          {
            name: "db",
            volumeMounts: [{ name: "data", mountPath: "/data" }],
            volumeDevices: [{ name: "raw", devicePath: "/dev/x" }],
          },
        ],
        ephemeralContainers: [{ name: "debug", volumeMounts: [{ name: "data", mountPath: "/data" }] }],
        volumes: [{ name: "seed" }, { name: "data" }, { name: "raw" }, { name: "unused" }],
      },
    };
    const names = podVolumeNames(pod);
    assert.deepEqual([...names.mounts].sort(), ["data", "seed"]);
    assert.deepEqual([...names.devices], ["raw"]);
    assert.deepEqual(expectedVolumeNames(pod), ["data", "raw", "seed"]);
  });
});
