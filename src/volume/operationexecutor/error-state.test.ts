import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { TransientOperationFailure, UncertainProgressError } from "../errors.ts";
import { VolumeSpec } from "../spec.ts";
import { markDeviceErrorState, markVolumeErrorState } from "./error-state.ts";
import { RecordingActualState } from "./testing/recording-actual-state.ts";
import type { MarkVolumeOptions } from "./types.ts";

const options: MarkVolumeOptions = {
  podName: "uid-a",
  podUID: "uid-a",
  volumeName: "vol",
  outerVolumeSpecName: "data",
  volumeSpec: VolumeSpec.fromPersistentVolume({ metadata: { name: "pv" } }),
  volumeMountState: "VolumeMounted",
};
const timeout = new UncertainProgressError("rpc error: code = DeadlineExceeded desc = context deadline exceeded");
const final = new Error("rpc error: code = Internal desc = mount failed");
const transient = new TransientOperationFailure("driver name d not found in the list of registered CSI drivers");

describe("error states after a failed mount (spec §3.5)", () => {
  it("marks a never-mounted volume and device Uncertain after an uncertain-progress error", () => {
    const asw = new RecordingActualState();
    markDeviceErrorState(asw, "vol", "/dev/a", "/global", timeout);
    markVolumeErrorState(asw, options, timeout);
    assert.equal(asw.getDeviceMountState("vol"), "DeviceMountUncertain");
    assert.equal(asw.getVolumeMountState("vol", "uid-a"), "VolumeMountUncertain");
  });

  it("turns Uncertain into NotMounted after a final error", () => {
    const asw = new RecordingActualState();
    markDeviceErrorState(asw, "vol", "/dev/a", "/global", timeout);
    markVolumeErrorState(asw, options, timeout);
    markDeviceErrorState(asw, "vol", "/dev/a", "/global", final);
    markVolumeErrorState(asw, options, final);
    assert.equal(asw.getDeviceMountState("vol"), "DeviceNotMounted");
    assert.equal(asw.getVolumeMountState("vol", "uid-a"), "VolumeNotMounted");
  });

  it("keeps reconstructed mounts Uncertain after a final error, so they are still cleaned up", () => {
    const asw = new RecordingActualState();
    asw.reconstructed.add("vol");
    asw.reconstructed.add("vol@uid-a");
    markDeviceErrorState(asw, "vol", "/dev/a", "/global", timeout);
    markVolumeErrorState(asw, options, timeout);
    markDeviceErrorState(asw, "vol", "/dev/a", "/global", final);
    markVolumeErrorState(asw, options, final);
    assert.equal(asw.getDeviceMountState("vol"), "DeviceMountUncertain");
    assert.equal(asw.getVolumeMountState("vol", "uid-a"), "VolumeMountUncertain");
  });

  it("changes nothing after a transient error", () => {
    const asw = new RecordingActualState();
    markDeviceErrorState(asw, "vol", "/dev/a", "/global", transient);
    markVolumeErrorState(asw, options, transient);
    assert.deepEqual(asw.calls, []);
  });

  it("leaves a mounted volume mounted after a final error (a failed remount)", () => {
    const asw = new RecordingActualState();
    asw.markVolumeAsMounted(options);
    markVolumeErrorState(asw, options, final);
    assert.equal(asw.getVolumeMountState("vol", "uid-a"), "VolumeMounted");
  });
});
