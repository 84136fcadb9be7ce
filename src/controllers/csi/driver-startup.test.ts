import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MockDriver } from "../../csi/drivers/mock/mock-driver.ts";
import { connectCsiInProcess } from "../../csi/grpc/in-process.ts";
import { Logger, MemorySink } from "../../runtime/logger.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { callWithTimeout } from "./driver-connection.ts";
import { connectToDriver, type DriverStartupOptions } from "./driver-startup.ts";

function setUp(mockName?: string) {
  const clock = new VirtualClock();
  const mock = new MockDriver({ clock, ...(mockName ? { name: mockName } : {}) });
  const logs = new MemorySink();
  const options: DriverStartupOptions = {
    driver: connectCsiInProcess(mock.implementations()),
    expectedName: "mock.csi.kvol.io",
    clock,
    logger: new Logger({ clock, sink: logs, level: "debug" }),
    callTimeoutMs: 15_000,
    isStopped: () => false,
  };
  return { clock, mock, logs, options };
}

describe("sidecar startup", () => {
  it("probes every second until the driver answers, then reads its name and capabilities", async () => {
    const { clock, mock, options } = setUp();
    mock.inject("Probe", { code: "Unavailable", times: 3 });
    const started = connectToDriver(options);
    await clock.advanceBy(3_000);
    const info = await started;
    assert.equal(info?.name, "mock.csi.kvol.io");
    assert.ok(info?.controllerCapabilities.has("PUBLISH_UNPUBLISH_VOLUME"));
    const firstCallMs = mock.calls()[0]?.startedAtMs ?? 0;
    assert.deepEqual(
      mock.calls().map((call) => `${call.startedAtMs - firstCallMs} ${call.method}`),
      [
        "0 Probe",
        "1000 Probe",
        "2000 Probe",
        "3000 Probe",
        "3000 GetPluginInfo",
        "3000 GetPluginCapabilities",
        "3000 ControllerGetCapabilities",
      ],
    );
  });

  it("does not serve a driver with another name, and says so", async () => {
    const { clock, logs, options } = setUp("other.csi.kvol.io");
    let stopped = false;
    const started = connectToDriver({ ...options, isStopped: () => stopped });
    await clock.advanceBy(2_500);
    stopped = true;
    await clock.advanceBy(1_000);
    assert.equal(await started, undefined);
    // Log values are quoted, so their inner quotes appear escaped.
    assert.match(
      logs.lines().join("\n"),
      /reports its name as \\"other\.csi\.kvol\.io\\" but this sidecar serves \\"mock/,
    );
  });

  it("fails a call the driver has not answered within the timeout with DeadlineExceeded", async () => {
    const clock = new VirtualClock();
    const outcome = callWithTimeout(clock, 15_000, () => new Promise<string>(() => undefined)).catch(
      (error: Error) => error.message,
    );
    await clock.advanceBy(15_000);
    assert.equal(await outcome, "rpc error: code = DeadlineExceeded desc = context deadline exceeded");
  });
});
