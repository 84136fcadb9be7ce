/**
 * One simulated node with the kubelet CSI plugin and a test driver deployed the way a DaemonSet
 * deploys it (driver socket + node-driver-registrar), registered through the real registration
 * handler. CSIDriver objects and VolumeAttachments are plain maps the test fills; every CSI call
 * the kubelet makes is in `calls`.
 */
import type { CSIDriver, VolumeAttachment } from "kubernetes-types/storage/v1.js";
import { notFound } from "../../../../api/errors.ts";
import { DEFAULT_TIMERS } from "../../../../api/timers.ts";
import type { CsiCallRecord } from "../../../../csi/grpc/call-log.ts";
import { type SimNodeFixture, type SimNodeFixtureOptions, settle, simNode } from "../../../testing/sim-node.ts";
import { SimCsiConnector } from "../connector/sim-csi-connector.ts";
import { SimCsiDeployment } from "../connector/sim-csi-deployment.ts";
import { CsiDriverRegistry } from "../csi-driver-registry.ts";
import { CsiPlugin } from "../csi-plugin.ts";
import { type CsiDriverNodeInfo, CsiRegistrationHandler } from "../registration/csi-registration-handler.ts";
import { TestCsiNodeDriver, type TestCsiNodeDriverOptions } from "./test-csi-node-driver.ts";

export interface CsiPluginFixture extends SimNodeFixture {
  driver: TestCsiNodeDriver;
  deployment: SimCsiDeployment;
  connector: SimCsiConnector;
  registry: CsiDriverRegistry;
  registration: CsiRegistrationHandler;
  plugin: CsiPlugin;
  /** Every CSI call the kubelet made, as the call log records it. */
  calls: CsiCallRecord[];
  csiDrivers: Map<string, CSIDriver>;
  attachments: Map<string, VolumeAttachment>;
  /** What registration wrote for the CSINode, by driver name. */
  installed: Map<string, CsiDriverNodeInfo>;
}

interface CsiPluginFixtureOptions extends SimNodeFixtureOptions {
  driver?: Omit<TestCsiNodeDriverOptions, "host">;
  /** Register the driver right away (default true). */
  register?: boolean;
  legacyStagingPath?: boolean;
}

export async function csiPluginFixture(options: CsiPluginFixtureOptions = {}): Promise<CsiPluginFixture> {
  const base = await simNode(options);
  const calls: CsiCallRecord[] = [];
  const csiDrivers = new Map<string, CSIDriver>();
  const attachments = new Map<string, VolumeAttachment>();
  const installed = new Map<string, CsiDriverNodeInfo>();
  const driver = new TestCsiNodeDriver({ ...options.driver, host: base.host });
  const deployment = await settle(
    base.clock,
    SimCsiDeployment.start({
      host: base.host,
      clock: base.clock,
      rootDir: base.rootDir,
      driverName: driver.name,
      implementations: driver.implementations,
    }),
  );
  const connector = new SimCsiConnector({
    host: base.host,
    clock: base.clock,
    callTimeoutMs: DEFAULT_TIMERS.csiTimeoutMs,
    onCall: (record) => calls.push(record),
  });
  const registry = new CsiDriverRegistry();
  const registration = new CsiRegistrationHandler({
    connector,
    drivers: registry,
    logger: base.logger,
    nodeInfo: {
      installDriver: async (info) => {
        installed.set(info.driverName, info);
      },
      uninstallDriver: async (name) => {
        installed.delete(name);
      },
    },
  });
  const plugin = new CsiPlugin({
    drivers: registry,
    api: {
      cachedCsiDriver: (name) => csiDrivers.get(name),
      getVolumeAttachment: async (name) => {
        const attachment = attachments.get(name);
        if (attachment === undefined) throw notFound("volumeattachments", "storage.k8s.io", name);
        return attachment;
      },
    },
    ...(options.legacyStagingPath === undefined ? {} : { legacyStagingPath: options.legacyStagingPath }),
  });
  plugin.init(base.volumeHost);
  const fixture = {
    ...base,
    driver,
    deployment,
    connector,
    registry,
    registration,
    plugin,
    calls,
    csiDrivers,
    attachments,
    installed,
  };
  if (options.register !== false) await settle(base.clock, registration.register(deployment.registrar.socketPath));
  calls.length = 0;
  return fixture;
}

/** The RPC names of the kubelet's calls, leaving out the capability queries that precede each step. */
export function callSequence(calls: readonly CsiCallRecord[]): string[] {
  return calls.filter((call) => call.method !== "NodeGetCapabilities").map((call) => call.method);
}
