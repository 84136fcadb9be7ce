import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { RealClock } from "../../runtime/real-clock.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import type { EmptyMessage, NodeStageVolumeRequest, StringMap } from "../proto/types.ts";
import type { CsiCallRecord } from "./call-log.ts";
import { connectCsiSocket } from "./client.ts";
import { unixEndpoint } from "./endpoint.ts";
import { CsiError, isFinalCsiError } from "./errors.ts";
import { connectCsiInProcess } from "./in-process.ts";
import { serveCsi } from "./server.ts";
import type { CsiIdentity } from "./services.ts";
import { driveVolumeLifecycle, mountCapability, type Settled, TestDriver } from "./testing/test-driver.ts";

const callTimeoutMs = 120_000;

async function rejection(call: Promise<unknown>): Promise<CsiError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof CsiError, `expected a CsiError, got ${String(error)}`);
    return error;
  }
  assert.fail("the call succeeded");
}

async function lifecycleOverSocket(): Promise<{ outcomes: Settled[]; log: CsiCallRecord[] }> {
  const directory = mkdtempSync(join(tmpdir(), "kvol-csi-"));
  const endpoint = unixEndpoint(join(directory, "csi.sock"));
  const driver = new TestDriver();
  const log: CsiCallRecord[] = [];
  const server = await serveCsi({ endpoint, identity: driver, controller: driver, node: driver });
  const client = connectCsiSocket({ endpoint, clock: new RealClock(), onCall: (record) => log.push(record) });
  try {
    return { outcomes: await driveVolumeLifecycle(client), log };
  } finally {
    client.close();
    server.kill();
    rmSync(directory, { recursive: true, force: true });
  }
}

async function lifecycleInProcess(): Promise<{ outcomes: Settled[]; log: CsiCallRecord[] }> {
  const driver = new TestDriver();
  const log: CsiCallRecord[] = [];
  const client = connectCsiInProcess({
    identity: driver,
    controller: driver,
    node: driver,
    onCall: (record) => log.push(record),
  });
  return { outcomes: await driveVolumeLifecycle(client), log };
}

function hangingStageRequest(driver: TestDriver) {
  return {
    volumeId: driver.hangingVolumeId,
    publishContext: {},
    stagingTargetPath: "/staging",
    volumeCapability: mountCapability,
    secrets: {},
    volumeContext: {},
  };
}

describe("in-process CSI transport", () => {
  test("the same calls give the same outcomes and the same call log as over a socket", async () => {
    const overSocket = await lifecycleOverSocket();
    const inProcess = await lifecycleInProcess();
    assert.deepEqual(inProcess.outcomes, overSocket.outcomes);
    assert.deepEqual(inProcess.log, overSocket.log);
    assert.equal(inProcess.log.length, 20);
  });

  test("the driver receives a decoded copy: defaults filled, unknown properties dropped, no shared objects", async () => {
    const driver = new TestDriver();
    driver.addVolume("vol-1", 1);
    const client = connectCsiInProcess({ identity: driver, node: driver });
    const volumeContext = { pool: "fast" };
    const request = { volumeId: "vol-1", stagingTargetPath: "/s", volumeCapability: mountCapability, volumeContext };
    await client.nodeStageVolume({ ...request, extra: "dropped" } as unknown as Parameters<
      typeof client.nodeStageVolume
    >[0]);
    volumeContext.pool = "changed after the call";
    assert.deepEqual(driver.received.at(-1), {
      volumeId: "vol-1",
      publishContext: {},
      stagingTargetPath: "/s",
      volumeCapability: mountCapability,
      secrets: {},
      volumeContext: { pool: "fast" },
    });
  });

  test("log records are copies: a driver changing its request or a caller its response changes nothing logged", async () => {
    class MutatingDriver extends TestDriver {
      override async nodeStageVolume(request: NodeStageVolumeRequest): Promise<EmptyMessage> {
        request.volumeContext.pool = "changed by the driver";
        return super.nodeStageVolume(request);
      }
    }
    const driver = new MutatingDriver();
    driver.addVolume("vol-1", 1);
    const log: CsiCallRecord[] = [];
    const client = connectCsiInProcess({ identity: driver, node: driver, onCall: (record) => log.push(record) });
    await client.nodeStageVolume({
      volumeId: "vol-1",
      publishContext: {},
      stagingTargetPath: "/s",
      volumeCapability: mountCapability,
      secrets: {},
      volumeContext: { pool: "fast" },
    });
    const info = await client.nodeGetInfo({});
    info.nodeId = "changed by the caller";
    const [stage, getInfo] = log;
    assert.equal(stage?.method === "NodeStageVolume" && stage.request.volumeContext.pool, "fast");
    assert.equal(getInfo?.method === "NodeGetInfo" && getInfo.response?.nodeId, "node-1");
  });

  test("a request that cannot be encoded fails with Internal before reaching the driver", async () => {
    const driver = new TestDriver();
    const log: CsiCallRecord[] = [];
    const client = connectCsiInProcess({ identity: driver, node: driver, onCall: (record) => log.push(record) });
    const malformed = { ...hangingStageRequest(driver), secrets: "not a map" };
    const error = await rejection(client.nodeStageVolume(malformed as unknown as NodeStageVolumeRequest));
    assert.equal(error.code, "Internal");
    assert.match(error.statusMessage, /^Request message serialization failure: /);
    assert.equal(driver.received.length, 0);
    assert.equal(log[0]?.error?.code, "Internal");
  });

  test("a handler slower than the deadline fails with DeadlineExceeded on the virtual clock", async () => {
    const clock = new VirtualClock();
    const driver = new TestDriver();
    const client = connectCsiInProcess({ identity: driver, node: driver, deadline: { clock, callTimeoutMs } });
    let settled = false;
    const staging = rejection(client.nodeStageVolume(hangingStageRequest(driver))).finally(() => {
      settled = true;
    });
    await clock.advanceBy(callTimeoutMs - 1);
    assert.equal(settled, false, "still waiting 1 ms before the deadline");
    await clock.advanceBy(1);
    const error = await staging;
    assert.equal(error.code, "DeadlineExceeded");
    assert.equal(error.statusMessage, "context deadline exceeded");
    assert.equal(isFinalCsiError(error), false);
    driver.releaseHangingCalls();
  });

  test("an answer before the deadline cancels the deadline timer", async () => {
    const clock = new VirtualClock();
    const driver = new TestDriver();
    const client = connectCsiInProcess({ identity: driver, deadline: { clock, callTimeoutMs } });
    assert.deepEqual(await client.probe({}), { ready: { value: true } });
    assert.equal(clock.pendingTimers(), 0);
  });

  test("a service the endpoint does not serve answers Unimplemented, as grpc-js words it", async () => {
    const driver = new TestDriver();
    const client = connectCsiInProcess({ identity: driver });
    const error = await rejection(client.nodeGetInfo({}));
    assert.equal(error.code, "Unimplemented");
    assert.equal(error.statusMessage, "The server does not implement the method /csi.v1.Node/NodeGetInfo");
  });

  test("a plain Error thrown by a driver arrives as Unknown, and a response that cannot be encoded as Internal", async () => {
    const failing: CsiIdentity = {
      getPluginInfo: async () => ({ name: "x", vendorVersion: "1", manifest: "not a map" as unknown as StringMap }),
      getPluginCapabilities: async () => ({ capabilities: [] }),
      probe: async () => {
        throw new Error("backend unreachable");
      },
    };
    const client = connectCsiInProcess({ identity: failing });
    const unknown = await rejection(client.probe({}));
    assert.deepEqual([unknown.code, unknown.statusMessage], ["Unknown", "backend unreachable"]);
    const internal = await rejection(client.getPluginInfo({}));
    assert.equal(internal.code, "Internal");
    assert.match(internal.statusMessage, /^Response message serialization failure: /);
  });

  test("calls after close fail with Canceled without reaching the driver", async () => {
    const driver = new TestDriver();
    const client = connectCsiInProcess({ identity: driver });
    client.close();
    const error = await rejection(client.probe({}));
    assert.equal(error.code, "Canceled");
    assert.equal(driver.received.length, 0);
  });

  test("rejects a deadline that is not a positive number of milliseconds", () => {
    const driver = new TestDriver();
    assert.throws(
      () => connectCsiInProcess({ identity: driver, deadline: { clock: new VirtualClock(), callTimeoutMs: 0 } }),
      /deadline\.callTimeoutMs must be a finite number > 0, got 0/,
    );
  });
});
