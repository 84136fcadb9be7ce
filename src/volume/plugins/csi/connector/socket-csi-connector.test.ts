/**
 * Registration and a node call over real Unix sockets (no root needed): a registrar served with
 * grpc-js on a temporary `plugins_registry/`, the test driver behind a real `csi.sock`.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { unixEndpoint } from "../../../../csi/grpc/endpoint.ts";
import { type CsiServer, serveCsi } from "../../../../csi/grpc/server.ts";
import { TestDriver, testDriverName } from "../../../../csi/grpc/testing/test-driver.ts";
import { RealClock } from "../../../../runtime/real-clock.ts";
import { RecordingLogger } from "../../../testing/recording-logger.ts";
import { csiPluginType } from "../csi-constants.ts";
import { CsiDriverRegistry } from "../csi-driver-registry.ts";
import { type CsiDriverNodeInfo, CsiRegistrationHandler } from "../registration/csi-registration-handler.ts";
import type { RegistrationStatus } from "../registration/plugin-registration-api.ts";
import { type RegistrationSocketServer, serveRegistrationSocket } from "../registration/registration-socket.ts";
import { SocketCsiConnector } from "./socket-csi-connector.ts";

describe("CSI registration over real Unix sockets", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("registers the driver announced by a registrar socket and calls it over its csi.sock", async () => {
    const root = mkdtempSync(join(tmpdir(), "kvol-reg-"));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    mkdirSync(join(root, "plugins_registry"));
    const driverSocket = join(root, "csi.sock");
    const registrationSocket = join(root, "plugins_registry", `${testDriverName}-reg.sock`);
    const server: CsiServer = await serveCsi({
      endpoint: unixEndpoint(driverSocket),
      identity: new TestDriver(),
      node: new TestDriver(),
    });
    cleanups.push(() => server.stop());
    const statuses: RegistrationStatus[] = [];
    const registrar: RegistrationSocketServer = await serveRegistrationSocket(registrationSocket, {
      getInfo: async () => ({
        type: csiPluginType,
        name: testDriverName,
        endpoint: driverSocket,
        supportedVersions: ["1.0.0"],
      }),
      notifyRegistrationStatus: async (status) => {
        statuses.push(status);
      },
    });
    cleanups.push(() => registrar.stop());

    const registry = new CsiDriverRegistry();
    cleanups.push(() => registry.closeAll());
    const installed: CsiDriverNodeInfo[] = [];
    const handler = new CsiRegistrationHandler({
      connector: new SocketCsiConnector({ clock: new RealClock(), callTimeoutMs: 10_000 }),
      drivers: registry,
      logger: new RecordingLogger(),
      nodeInfo: {
        installDriver: async (info) => {
          installed.push(info);
        },
        uninstallDriver: async () => undefined,
      },
    });
    await handler.register(registrationSocket);

    assert.deepEqual(statuses, [{ pluginRegistered: true, error: "" }]);
    assert.equal(installed[0]?.driverName, testDriverName);
    assert.equal(installed[0]?.nodeId, "node-1");
    const driver = registry.require(testDriverName);
    assert.equal(driver.endpoint, driverSocket);
    const capabilities = await driver.client.nodeGetCapabilities({});
    assert.ok(capabilities.capabilities.some((capability) => capability.rpc?.type === "STAGE_UNSTAGE_VOLUME"));
  });
});
