/**
 * The socket transport end to end: a grpc-js server on a temporary Unix socket serving the test
 * driver, called through the grpc-js client.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, test } from "node:test";
import { RealClock } from "../../runtime/real-clock.ts";
import type { CsiCallRecord } from "./call-log.ts";
import { connectCsiSocket } from "./client.ts";
import { unixEndpoint } from "./endpoint.ts";
import { CsiError, isFinalCsiError } from "./errors.ts";
import { type CsiServer, serveCsi } from "./server.ts";
import type { CsiClient, CsiIdentity } from "./services.ts";
import {
  driveVolumeLifecycle,
  gibibyteBytes,
  mountCapability,
  TestDriver,
  testDriverName,
} from "./testing/test-driver.ts";

const testCallTimeoutMs = 10_000;
const shortCallTimeoutMs = 150;

async function rejection(call: Promise<unknown>): Promise<CsiError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof CsiError, `expected a CsiError, got ${String(error)}`);
    return error;
  }
  assert.fail("the call succeeded");
}

describe("CSI over a Unix socket", () => {
  let directory: string;
  let endpoint: string;
  let driver: TestDriver;
  let server: CsiServer;
  let client: CsiClient;
  let clientLog: CsiCallRecord[];
  let serverLog: CsiCallRecord[];
  const clock = new RealClock();

  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), "kvol-csi-"));
    endpoint = unixEndpoint(join(directory, "csi.sock"));
    driver = new TestDriver();
    clientLog = [];
    serverLog = [];
    server = await serveCsi({
      endpoint,
      identity: driver,
      controller: driver,
      node: driver,
      onCall: (record) => serverLog.push(record),
    });
    client = connectCsiSocket({
      endpoint,
      clock,
      callTimeoutMs: testCallTimeoutMs,
      onCall: (record) => clientLog.push(record),
    });
  });

  afterEach(() => {
    client.close();
    driver.releaseHangingCalls();
    server.kill();
    rmSync(directory, { recursive: true, force: true });
  });

  test("every Identity RPC answers with the driver's data", async () => {
    assert.deepEqual(await client.getPluginInfo({}), {
      name: testDriverName,
      vendorVersion: "1.0.0",
      manifest: { commit: "abc123" },
    });
    assert.deepEqual(await client.getPluginCapabilities({}), {
      capabilities: [{ service: { type: "CONTROLLER_SERVICE" } }, { volumeExpansion: { type: "ONLINE" } }],
    });
    assert.deepEqual(await client.probe({}), { ready: { value: true } });
  });

  test("every Node RPC carries its request fields to the driver and its answer back", async () => {
    driver.addVolume("vol-1", 5 * gibibyteBytes);
    const stagingTargetPath = "/var/lib/kubelet/plugins/kubernetes.io/csi/test.csi.kvol.io/abc/globalmount";
    const targetPath = "/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~csi/pv-1/mount";

    assert.deepEqual(await client.nodeGetInfo({}), {
      nodeId: "node-1",
      maxVolumesPerNode: 16,
      accessibleTopology: { segments: { "topology.kvol.io/zone": "z1" } },
    });
    const capabilities = await client.nodeGetCapabilities({});
    assert.deepEqual(
      capabilities.capabilities.map((capability) => capability.rpc?.type),
      ["STAGE_UNSTAGE_VOLUME", "GET_VOLUME_STATS", "EXPAND_VOLUME"],
    );

    const stageRequest = {
      volumeId: "vol-1",
      publishContext: { devicePath: "/dev/sdb" },
      stagingTargetPath,
      volumeCapability: mountCapability,
      secrets: { token: "s3cr3t" },
      volumeContext: { pool: "fast" },
    };
    assert.deepEqual(await client.nodeStageVolume(stageRequest), {});
    assert.deepEqual(driver.received.at(-1), stageRequest, "the driver sees exactly what kubelet sent");
    assert.equal(driver.stagedPaths.get(stagingTargetPath), "vol-1");

    await client.nodePublishVolume({ ...stageRequest, targetPath, readonly: true });
    assert.equal(driver.publishedPaths.get(targetPath), "vol-1");
    assert.equal((driver.received.at(-1) as { readonly: boolean }).readonly, true);

    assert.deepEqual(
      await client.nodeGetVolumeStats({ volumeId: "vol-1", volumePath: targetPath, stagingTargetPath }),
      {
        usage: [{ available: 5 * gibibyteBytes, total: 5 * gibibyteBytes, used: 0, unit: "BYTES" }],
        volumeCondition: null,
      },
    );
    const expanded = await client.nodeExpandVolume({
      volumeId: "vol-1",
      volumePath: targetPath,
      capacityRange: null,
      stagingTargetPath,
      volumeCapability: null,
      secrets: {},
    });
    assert.deepEqual(expanded, { capacityBytes: 5 * gibibyteBytes });

    assert.deepEqual(await client.nodeUnpublishVolume({ volumeId: "vol-1", targetPath }), {});
    assert.equal(driver.publishedPaths.has(targetPath), false);
    assert.deepEqual(await client.nodeUnstageVolume({ volumeId: "vol-1", stagingTargetPath }), {});
    assert.equal(driver.stagedPaths.has(stagingTargetPath), false);
  });

  test("a NotFound the driver throws arrives as NotFound with its message, and is final", async () => {
    const error = await rejection(
      client
        .nodeUnpublishVolume({ volumeId: "vol-1", targetPath: "/t" })
        .then(() => client.nodeGetVolumeStats({ volumeId: "vol-9", volumePath: "/t", stagingTargetPath: "" })),
    );
    assert.equal(error.code, "NotFound");
    assert.equal(error.statusMessage, "volume vol-9 is not published at /t");
    assert.equal(error.message, "rpc error: code = NotFound desc = volume vol-9 is not published at /t");
    assert.equal(isFinalCsiError(error), true);
  });

  test("a handler slower than the deadline yields DeadlineExceeded, which is not final", async () => {
    const impatient = connectCsiSocket({ endpoint, clock, callTimeoutMs: shortCallTimeoutMs });
    try {
      const error = await rejection(
        impatient.nodeStageVolume({
          volumeId: driver.hangingVolumeId,
          publishContext: {},
          stagingTargetPath: "/staging",
          volumeCapability: mountCapability,
          secrets: {},
          volumeContext: {},
        }),
      );
      assert.equal(error.code, "DeadlineExceeded");
      assert.equal(error.statusMessage, "context deadline exceeded");
      assert.equal(isFinalCsiError(error), false);
    } finally {
      impatient.close();
    }
  });

  test("controller RPCs carry int64 sizes and maps both ways", async () => {
    const created = await client.createVolume({
      name: "pvc-1",
      capacityRange: { requiredBytes: 5 * 2 ** 40, limitBytes: 0 },
      volumeCapabilities: [mountCapability],
      parameters: { type: "ssd" },
      secrets: {},
      volumeContentSource: null,
      accessibilityRequirements: { requisite: [{ segments: { zone: "z1" } }], preferred: [] },
      mutableParameters: {},
    });
    assert.equal(created.volume?.volumeId, "vol-pvc-1");
    assert.equal(created.volume?.capacityBytes, 5 * 2 ** 40);
    const published = await client.controllerPublishVolume({
      volumeId: "vol-pvc-1",
      nodeId: "node-1",
      volumeCapability: mountCapability,
      readonly: false,
      secrets: {},
      volumeContext: {},
    });
    assert.deepEqual(published, { publishContext: { devicePath: "/dev/disk/by-id/vol-pvc-1" } });
    const deleting = await rejection(client.deleteVolume({ volumeId: "vol-pvc-1", secrets: {} }));
    assert.equal(deleting.code, "FailedPrecondition");
  });

  test("the client's and the server's call logs agree, and neither shows secret values", async () => {
    const outcomes = await driveVolumeLifecycle(client);
    const failures = outcomes.flatMap((outcome) => ("error" in outcome ? [outcome.error] : []));
    assert.deepEqual(failures, [{ code: "NotFound", message: "volume vol-missing does not exist" }]);
    assert.equal(clientLog.length, outcomes.length);
    assert.deepEqual(clientLog, serverLog);
    const stage = clientLog.find((record) => record.method === "NodeStageVolume" && record.response !== undefined);
    assert.deepEqual(stage?.request.secrets, { token: "***stripped***" });
    assert.equal(JSON.stringify(clientLog).includes("s3cr3t"), false);
  });
});

describe("CSI socket endpoints", () => {
  let directory: string;
  const clock = new RealClock();

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "kvol-csi-"));
  });

  afterEach(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  test("a service the endpoint does not serve answers Unimplemented, which is final", async () => {
    const endpoint = unixEndpoint(join(directory, "csi.sock"));
    const driver = new TestDriver();
    const server = await serveCsi({ endpoint, identity: driver, node: driver });
    const client = connectCsiSocket({ endpoint, clock });
    try {
      const error = await rejection(client.controllerGetCapabilities({}));
      assert.equal(error.code, "Unimplemented");
      assert.equal(
        error.statusMessage,
        "The server does not implement the method /csi.v1.Controller/ControllerGetCapabilities",
      );
      assert.equal(isFinalCsiError(error), true);
    } finally {
      client.close();
      server.kill();
    }
  });

  test("a plain Error thrown by a driver arrives as Unknown with its message", async () => {
    const endpoint = unixEndpoint(join(directory, "csi.sock"));
    const failing: CsiIdentity = {
      getPluginInfo: async () => ({ name: "x", vendorVersion: "1", manifest: {} }),
      getPluginCapabilities: async () => ({ capabilities: [] }),
      probe: async () => {
        throw new Error("backend unreachable");
      },
    };
    const server = await serveCsi({ endpoint, identity: failing });
    const client = connectCsiSocket({ endpoint, clock });
    try {
      const error = await rejection(client.probe({}));
      assert.equal(error.code, "Unknown");
      assert.equal(error.statusMessage, "backend unreachable");
    } finally {
      client.close();
      server.kill();
    }
  });

  test("nobody listening is Unavailable, which is not final", async () => {
    const client = connectCsiSocket({ endpoint: unixEndpoint(join(directory, "absent.sock")), clock });
    try {
      const error = await rejection(client.nodeGetInfo({}));
      assert.equal(error.code, "Unavailable");
      assert.equal(isFinalCsiError(error), false);
    } finally {
      client.close();
    }
  });

  test("calls after close fail with Canceled without reaching the driver", async () => {
    const endpoint = unixEndpoint(join(directory, "csi.sock"));
    const driver = new TestDriver();
    const server = await serveCsi({ endpoint, identity: driver });
    const client = connectCsiSocket({ endpoint, clock });
    try {
      await client.probe({});
      client.close();
      const error = await rejection(client.probe({}));
      assert.equal(error.code, "Canceled");
      assert.equal(driver.received.length, 1);
    } finally {
      server.kill();
    }
  });

  test("a socket left by an earlier run is replaced; any other file is refused", async () => {
    const endpoint = unixEndpoint(join(directory, "csi.sock"));
    const first = await serveCsi({ endpoint, identity: new TestDriver() });
    first.kill();
    const second = await serveCsi({ endpoint, identity: new TestDriver() });
    const client = connectCsiSocket({ endpoint, clock });
    try {
      assert.deepEqual(await client.probe({}), { ready: { value: true } });
    } finally {
      client.close();
      await second.stop();
    }

    const occupied = join(directory, "occupied.sock");
    writeFileSync(occupied, "not a socket");
    await assert.rejects(
      serveCsi({ endpoint: unixEndpoint(occupied), identity: new TestDriver() }),
      /a file that is not a socket is in the way/,
    );
  });
});
