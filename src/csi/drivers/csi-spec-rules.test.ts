/**
 * The required-field and error-code rules of the CSI spec (`shared/spec/csi-wire.md` §1–§2), one
 * table-driven test per rule, each run against every bundled driver served over gRPC on a Unix
 * socket, as kubelet and the sidecars reach them. A driver's advertised capabilities decide which
 * rules apply to it: a rule about ControllerPublishVolume is skipped, saying why, for a driver
 * without PUBLISH_UNPUBLISH_VOLUME. A laxer driver would hide bugs in the code that calls it.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it, type TestContext } from "node:test";
import { expectErrno } from "../../host/host-contract.ts";
import type { SimHost } from "../../host/sim/sim-host.ts";
import { SimWorld } from "../../host/sim/sim-world.ts";
import { RealClock } from "../../runtime/real-clock.ts";
import { Rng } from "../../runtime/rng.ts";
import { connectCsiSocket } from "../grpc/client.ts";
import { unixEndpoint } from "../grpc/endpoint.ts";
import type { CsiStatusName } from "../grpc/errors.ts";
import { type CsiServer, serveCsi } from "../grpc/server.ts";
import type { CsiClient } from "../grpc/services.ts";
import type { ControllerRpcType, NodeRpcType, StringMap, VolumeCapability } from "../proto/types.ts";
import { createBundledDriver } from "./bundled-drivers.ts";
import type { BundledDriver } from "./common/bundled-driver.ts";
import { diskDriverName, fuseDriverName, hostpathDriverName, mockDriverName } from "./common/constants.ts";
import { createHostpathDriver } from "./hostpath/hostpath-driver.ts";
import { MockDriver } from "./mock/mock-driver.ts";
import {
  createRequest,
  mountCapability,
  publishRequest,
  rejectsWithCode,
  stageRequest,
  stagingPathOf,
  targetPathOf,
} from "./testing/driver-test-support.ts";

const callTimeoutMs = 20_000;
/** hostpath.csi.kvol.io with `attachRequired`, in the rules' list of drivers. */
const hostpathWithAttach = `${hostpathDriverName} (attachRequired)`;
const nodeA = "node-a";
const nodeB = "node-b";

interface DriverUnderTest {
  readonly name: string;
  readonly client: CsiClient;
  /** The node the driver's node plugin runs on. */
  readonly host: SimHost;
  /** Disks of the simulated cloud attach at once here (the rules are about codes, not latency). */
  readonly world: SimWorld;
  controllerCaps: Set<ControllerRpcType>;
  nodeCaps: Set<NodeRpcType>;
  server: CsiServer;
}

/** What a rule may need: a volume that exists, or one published on the node, made on demand. */
interface RuleContext {
  readonly driver: DriverUnderTest;
  /** A new volume (its own name per call). */
  volume(): Promise<string>;
  /** A new volume, controller-published to node-a and staged there when the driver does those. */
  stagedVolume(): Promise<StagedVolume>;
}

interface StagedVolume {
  volumeId: string;
  stagingPath: string;
  publishContext: StringMap;
}

type Needs =
  | { controller: ControllerRpcType }
  | { node: NodeRpcType }
  | { notController: ControllerRpcType }
  | "always";

interface Rule {
  title: string;
  needs: Needs;
  /** Makes the call (on the driver's client) whose outcome the rule states. */
  call(context: RuleContext): Promise<unknown>;
  /** The gRPC status the call must fail with, and a pattern its message must match. */
  code: CsiStatusName;
  message?: RegExp;
  /** Why a driver that has the capability still cannot be put in the rule's situation, if so. */
  unreachable?: (driver: DriverUnderTest) => string | undefined;
}

/** A rule whose call must succeed; `check` asserts what must then hold. */
interface SuccessRule {
  title: string;
  needs: Needs;
  check(context: RuleContext): Promise<void>;
}

const rwo = mountCapability();
const noAccessType: VolumeCapability = { accessMode: { mode: "SINGLE_NODE_WRITER" } };
let names = 0;
const uniqueName = (prefix: string) => `${prefix}-${++names}`;

function snapshotRequest(name: string, sourceVolumeId: string) {
  return { name, sourceVolumeId, secrets: {}, parameters: {} };
}

function listSnapshotsRequest(fields: {
  maxEntries?: number;
  startingToken?: string;
  sourceVolumeId?: string;
  snapshotId?: string;
}) {
  return { maxEntries: 0, startingToken: "", sourceVolumeId: "", snapshotId: "", secrets: {}, ...fields };
}

/** A call on the node's host held at its start until released: an operation that is pending. */
interface HeldCall {
  /** Resolves once the driver has made the call. */
  started: Promise<void>;
  release(): void;
}

/** Holds the driver's next `copyTree` or `unlink` on its node, the slow steps of a snapshot's copy and deletion. */
function holdNext(host: SimHost, method: "copyTree" | "unlink"): HeldCall {
  // Both take paths only; one signature lets the replacement stand in for either.
  const calls = host as unknown as Record<typeof method, (...paths: string[]) => Promise<void>>;
  const original = calls[method].bind(host);
  let markStarted = (): void => undefined;
  let release = (): void => undefined;
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  calls[method] = async (...paths: string[]) => {
    calls[method] = original;
    markStarted();
    await released;
    return original(...paths);
  };
  return { started, release };
}

/** The simulated cloud cuts, restores and deletes a snapshot in one step: nothing is ever pending there. */
function onlyOnHost(driver: DriverUnderTest): string | undefined {
  return driver.name === diskDriverName
    ? "the simulated cloud provider cuts, restores and deletes a snapshot at once, so none is ever pending"
    : undefined;
}

async function takeSnapshot(driver: DriverUnderTest, sourceVolumeId: string): Promise<string> {
  const taken = await driver.client.createSnapshot(snapshotRequest(uniqueName("s"), sourceVolumeId));
  return taken.snapshot?.snapshotId ?? "";
}

function publishTo(volumeId: string, nodeId: string, capability: VolumeCapability | null = rwo) {
  return { volumeId, nodeId, volumeCapability: capability, readonly: false, secrets: {}, volumeContext: {} };
}

const errorRules: Rule[] = [
  // ---- Controller ----
  {
    title: "CreateVolume without name is InvalidArgument",
    needs: { controller: "CREATE_DELETE_VOLUME" },
    call: ({ driver }) => driver.client.createVolume(createRequest("")),
    code: "InvalidArgument",
    message: /name is required/,
  },
  {
    title: "CreateVolume without volume_capabilities is InvalidArgument",
    needs: { controller: "CREATE_DELETE_VOLUME" },
    call: ({ driver }) => driver.client.createVolume(createRequest(uniqueName("c"), { volumeCapabilities: [] })),
    code: "InvalidArgument",
    message: /volume_capabilities is required/,
  },
  {
    title: "CreateVolume with a capability that is neither block nor mount is InvalidArgument",
    needs: { controller: "CREATE_DELETE_VOLUME" },
    call: ({ driver }) =>
      driver.client.createVolume(createRequest(uniqueName("c"), { volumeCapabilities: [noAccessType] })),
    code: "InvalidArgument",
    message: /exactly one of block and mount/,
  },
  {
    title: "CreateVolume of an existing name with an incompatible capacity is AlreadyExists",
    needs: { controller: "CREATE_DELETE_VOLUME" },
    call: async ({ driver }) => {
      const name = uniqueName("twice");
      await driver.client.createVolume(createRequest(name));
      return driver.client.createVolume(
        createRequest(name, { capacityRange: { requiredBytes: 50 * 1024 ** 2, limitBytes: 50 * 1024 ** 2 } }),
      );
    },
    code: "AlreadyExists",
  },
  {
    title: "DeleteVolume without volume_id is InvalidArgument",
    needs: { controller: "CREATE_DELETE_VOLUME" },
    call: ({ driver }) => driver.client.deleteVolume({ volumeId: "", secrets: {} }),
    code: "InvalidArgument",
    message: /volume_id is required/,
  },
  {
    title: "ControllerPublishVolume without volume_id, node_id or volume_capability is InvalidArgument",
    needs: { controller: "PUBLISH_UNPUBLISH_VOLUME" },
    call: async ({ driver, volume }) => {
      const volumeId = await volume();
      await rejectsWithCode(driver.client.controllerPublishVolume(publishTo("", nodeA)), "InvalidArgument");
      await rejectsWithCode(driver.client.controllerPublishVolume(publishTo(volumeId, "")), "InvalidArgument");
      return driver.client.controllerPublishVolume(publishTo(volumeId, nodeA, null));
    },
    code: "InvalidArgument",
    message: /volume_capability is required/,
  },
  {
    title: "ControllerPublishVolume of a volume that does not exist is NotFound",
    needs: { controller: "PUBLISH_UNPUBLISH_VOLUME" },
    call: ({ driver }) => driver.client.controllerPublishVolume(publishTo("no-such-volume", nodeA)),
    code: "NotFound",
  },
  {
    title: "ControllerPublishVolume to a node that does not exist is NotFound",
    needs: { controller: "PUBLISH_UNPUBLISH_VOLUME" },
    call: async ({ driver, volume }) => driver.client.controllerPublishVolume(publishTo(await volume(), "node-zz")),
    code: "NotFound",
    message: /node-zz/,
  },
  {
    title: "ControllerPublishVolume of a single-node volume published to another node is FailedPrecondition naming it",
    needs: { controller: "PUBLISH_UNPUBLISH_VOLUME" },
    call: async ({ driver, volume }) => {
      const volumeId = await volume();
      await driver.client.controllerPublishVolume(publishTo(volumeId, nodeA));
      return driver.client.controllerPublishVolume(publishTo(volumeId, nodeB));
    },
    code: "FailedPrecondition",
    message: /node-a/,
  },
  {
    title: "ControllerPublishVolume of a driver without PUBLISH_UNPUBLISH_VOLUME is Unimplemented",
    needs: { notController: "PUBLISH_UNPUBLISH_VOLUME" },
    call: async ({ driver, volume }) => driver.client.controllerPublishVolume(publishTo(await volume(), nodeA)),
    code: "Unimplemented",
  },
  {
    title: "ControllerUnpublishVolume without volume_id is InvalidArgument",
    needs: { controller: "PUBLISH_UNPUBLISH_VOLUME" },
    call: ({ driver }) => driver.client.controllerUnpublishVolume({ volumeId: "", nodeId: nodeA, secrets: {} }),
    code: "InvalidArgument",
    message: /volume_id is required/,
  },
  {
    title: "ValidateVolumeCapabilities without volume_id is InvalidArgument",
    needs: "always",
    call: ({ driver }) => driver.client.validateVolumeCapabilities(validateRequest("", [rwo])),
    code: "InvalidArgument",
    message: /volume_id is required/,
  },
  {
    title: "ValidateVolumeCapabilities without volume_capabilities is InvalidArgument",
    needs: "always",
    call: async ({ driver, volume }) => driver.client.validateVolumeCapabilities(validateRequest(await volume(), [])),
    code: "InvalidArgument",
    message: /volume_capabilities is required/,
  },
  {
    title: "ValidateVolumeCapabilities of a volume that does not exist is NotFound",
    needs: "always",
    call: ({ driver }) => driver.client.validateVolumeCapabilities(validateRequest("no-such-volume", [rwo])),
    code: "NotFound",
  },
  {
    title: "ListVolumes with a starting_token the driver did not hand out is Aborted",
    needs: { controller: "LIST_VOLUMES" },
    call: ({ driver }) => driver.client.listVolumes({ maxEntries: 0, startingToken: "not-a-token" }),
    code: "Aborted",
  },
  {
    title: "ListVolumes with a negative max_entries is InvalidArgument",
    needs: { controller: "LIST_VOLUMES" },
    call: ({ driver }) => driver.client.listVolumes({ maxEntries: -1, startingToken: "" }),
    code: "InvalidArgument",
    message: /max_entries/,
  },
  {
    title: "GetCapacity of a driver without GET_CAPACITY is Unimplemented",
    needs: { notController: "GET_CAPACITY" },
    call: ({ driver }) =>
      driver.client.getCapacity({ volumeCapabilities: [rwo], parameters: {}, accessibleTopology: null }),
    code: "Unimplemented",
  },
  // ---- Node ----
  {
    title: "NodeStageVolume without volume_id, staging_target_path or volume_capability is InvalidArgument",
    needs: { node: "STAGE_UNSTAGE_VOLUME" },
    call: async ({ driver, volume }) => {
      const volumeId = await volume();
      const staging = stagingPathOf(driver.name, volumeId);
      await rejectsWithCode(driver.client.nodeStageVolume(stageRequest("", staging)), "InvalidArgument");
      await rejectsWithCode(driver.client.nodeStageVolume(stageRequest(volumeId, "")), "InvalidArgument");
      return driver.client.nodeStageVolume({ ...stageRequest(volumeId, staging), volumeCapability: null });
    },
    code: "InvalidArgument",
    message: /volume_capability is required/,
  },
  {
    title: "NodeStageVolume of a volume that does not exist is NotFound",
    needs: { node: "STAGE_UNSTAGE_VOLUME" },
    call: ({ driver }) =>
      driver.client.nodeStageVolume(stageRequest("no-such-volume", stagingPathOf(driver.name, "no-such-volume"))),
    code: "NotFound",
  },
  {
    title: "NodeUnstageVolume without volume_id or staging_target_path is InvalidArgument",
    needs: { node: "STAGE_UNSTAGE_VOLUME" },
    call: async ({ driver }) => {
      await rejectsWithCode(
        driver.client.nodeUnstageVolume({ volumeId: "", stagingTargetPath: "/s" }),
        "InvalidArgument",
      );
      return driver.client.nodeUnstageVolume({ volumeId: "v", stagingTargetPath: "" });
    },
    code: "InvalidArgument",
    message: /staging_target_path is required/,
  },
  {
    title: "NodePublishVolume without volume_id, target_path or volume_capability is InvalidArgument",
    needs: "always",
    call: async ({ driver, stagedVolume }) => {
      const { volumeId, stagingPath } = await stagedVolume();
      const target = targetPathOf(uniqueName("uid"), "pv");
      await rejectsWithCode(
        driver.client.nodePublishVolume(publishRequest("", stagingPath, target)),
        "InvalidArgument",
      );
      await rejectsWithCode(
        driver.client.nodePublishVolume(publishRequest(volumeId, stagingPath, "")),
        "InvalidArgument",
      );
      return driver.client.nodePublishVolume(publishRequest(volumeId, stagingPath, target, { volumeCapability: null }));
    },
    code: "InvalidArgument",
    message: /volume_capability is required/,
  },
  {
    title: "NodePublishVolume of a volume that does not exist is NotFound",
    needs: "always",
    call: ({ driver }) =>
      driver.client.nodePublishVolume(
        publishRequest("no-such-volume", stagingPathOf(driver.name, "no-such-volume"), targetPathOf("uid-x", "pv")),
      ),
    code: "NotFound",
  },
  {
    title: "NodePublishVolume without staging_target_path on a driver with STAGE_UNSTAGE_VOLUME is FailedPrecondition",
    needs: { node: "STAGE_UNSTAGE_VOLUME" },
    call: async ({ driver, stagedVolume }) => {
      const { volumeId, publishContext } = await stagedVolume();
      return driver.client.nodePublishVolume({
        ...publishRequest(volumeId, "", targetPathOf(uniqueName("uid"), "pv")),
        publishContext,
      });
    },
    code: "FailedPrecondition",
    message: /staging_target_path/,
  },
  {
    title: "NodeUnpublishVolume without volume_id or target_path is InvalidArgument",
    needs: "always",
    call: async ({ driver }) => {
      await rejectsWithCode(driver.client.nodeUnpublishVolume({ volumeId: "", targetPath: "/t" }), "InvalidArgument");
      return driver.client.nodeUnpublishVolume({ volumeId: "v", targetPath: "" });
    },
    code: "InvalidArgument",
    message: /target_path is required/,
  },
  {
    title: "NodeGetVolumeStats without volume_id or volume_path is InvalidArgument",
    needs: { node: "GET_VOLUME_STATS" },
    call: async ({ driver, volume }) => {
      const volumeId = await volume();
      await rejectsWithCode(statsOf(driver, "", "/t"), "InvalidArgument", /volume_id is required/);
      return statsOf(driver, volumeId, "");
    },
    code: "InvalidArgument",
    message: /volume_path is required/,
  },
  {
    title: "NodeGetVolumeStats of a volume that does not exist is NotFound, whatever its path",
    needs: { node: "GET_VOLUME_STATS" },
    call: async ({ driver }) => {
      await rejectsWithCode(statsOf(driver, "no-such-volume", "relative/path"), "NotFound");
      return statsOf(driver, "no-such-volume", targetPathOf("uid-x", "pv"));
    },
    code: "NotFound",
  },
  {
    title: "NodeGetVolumeStats of a volume not present at volume_path (missing or relative) is NotFound",
    needs: { node: "GET_VOLUME_STATS" },
    call: async ({ driver, volume }) => {
      const volumeId = await volume();
      await rejectsWithCode(statsOf(driver, volumeId, "relative/path"), "NotFound", /not present at volume_path/);
      return statsOf(driver, volumeId, targetPathOf("uid-nowhere", "pv"));
    },
    code: "NotFound",
  },
  {
    title: "ControllerExpandVolume without volume_id or capacity_range is InvalidArgument",
    needs: { controller: "EXPAND_VOLUME" },
    call: async ({ driver, volume }) => {
      await rejectsWithCode(controllerExpandOf(driver, "", gibibyteBytes), "InvalidArgument", /volume_id is required/);
      return driver.client.controllerExpandVolume({
        volumeId: await volume(),
        capacityRange: null,
        secrets: {},
        volumeCapability: rwo,
      });
    },
    code: "InvalidArgument",
    message: /capacity_range/,
  },
  {
    title: "ControllerExpandVolume of a volume that does not exist is NotFound",
    needs: { controller: "EXPAND_VOLUME" },
    call: ({ driver }) => controllerExpandOf(driver, "no-such-volume", gibibyteBytes),
    code: "NotFound",
  },
  {
    title: "ControllerExpandVolume beyond the driver's maximum capacity is OutOfRange",
    needs: { controller: "EXPAND_VOLUME" },
    call: async ({ driver, volume }) => controllerExpandOf(driver, await volume(), 2 ** 50),
    code: "OutOfRange",
  },
  {
    title: "ControllerExpandVolume with a limit_bytes below the volume's size (a shrink) is OutOfRange",
    needs: { controller: "EXPAND_VOLUME" },
    call: async ({ driver, volume }) =>
      driver.client.controllerExpandVolume({
        volumeId: await volume(),
        capacityRange: { requiredBytes: 0, limitBytes: mebibyteBytes },
        secrets: {},
        volumeCapability: rwo,
      }),
    code: "OutOfRange",
    message: /limit_bytes/,
  },
  {
    title: "NodeExpandVolume of a volume that does not exist is NotFound",
    needs: { node: "EXPAND_VOLUME" },
    call: ({ driver }) => expandOf(driver, "no-such-volume", targetPathOf("uid-x", "pv")),
    code: "NotFound",
  },
  {
    title: "NodeExpandVolume of a volume not present at volume_path is NotFound",
    needs: { node: "EXPAND_VOLUME" },
    call: async ({ driver, volume }) => expandOf(driver, await volume(), targetPathOf(uniqueName("uid-nowhere"), "pv")),
    code: "NotFound",
    message: /not present at volume_path/,
  },
  {
    title: "NodeExpandVolume asking for more than the volume has (before ControllerExpandVolume) is OutOfRange",
    needs: { node: "EXPAND_VOLUME" },
    call: async ({ driver, stagedVolume }) => {
      const { volumeId, stagingPath } = await stagedVolume();
      return driver.client.nodeExpandVolume({
        volumeId,
        volumePath: stagingPath,
        capacityRange: { requiredBytes: 2 ** 40, limitBytes: 0 },
        stagingTargetPath: stagingPath,
        volumeCapability: rwo,
        secrets: {},
      });
    },
    code: "OutOfRange",
  },
  {
    title: "NodeExpandVolume without volume_id or volume_path is InvalidArgument",
    needs: { node: "EXPAND_VOLUME" },
    call: async ({ driver, volume }) => {
      const volumeId = await volume();
      await rejectsWithCode(expandOf(driver, "", "/t"), "InvalidArgument", /volume_id is required/);
      return expandOf(driver, volumeId, "");
    },
    code: "InvalidArgument",
    message: /volume_path is required/,
  },
  {
    title: "CreateSnapshot without name or source_volume_id is InvalidArgument",
    needs: { controller: "CREATE_DELETE_SNAPSHOT" },
    call: ({ driver }) => driver.client.createSnapshot(snapshotRequest("", "vol")),
    code: "InvalidArgument",
    message: /name is required/,
  },
  {
    title: "CreateSnapshot without source_volume_id is InvalidArgument",
    needs: { controller: "CREATE_DELETE_SNAPSHOT" },
    call: ({ driver }) => driver.client.createSnapshot(snapshotRequest(uniqueName("s"), "")),
    code: "InvalidArgument",
    message: /source_volume_id is required/,
  },
  {
    title: "CreateSnapshot of a volume that does not exist is NotFound",
    needs: { controller: "CREATE_DELETE_SNAPSHOT" },
    call: ({ driver }) => driver.client.createSnapshot(snapshotRequest(uniqueName("s"), "no-such-volume")),
    code: "NotFound",
  },
  {
    title: "CreateSnapshot repeating a name for another source volume is AlreadyExists",
    needs: { controller: "CREATE_DELETE_SNAPSHOT" },
    call: async ({ driver, volume }) => {
      const name = uniqueName("s");
      await driver.client.createSnapshot(snapshotRequest(name, await volume()));
      return driver.client.createSnapshot(snapshotRequest(name, await volume()));
    },
    code: "AlreadyExists",
  },
  {
    title: "CreateSnapshot of a volume bigger than the free space for snapshots is ResourceExhausted",
    needs: { controller: "CREATE_DELETE_SNAPSHOT" },
    unreachable: (driver) =>
      driver.name === diskDriverName ? "the simulated cloud provider sets no limit on snapshot space" : undefined,
    call: async ({ driver }) => {
      // 200 GiB: twice the simulated node's 100 GiB root disk the snapshots are kept on.
      const { volume } = await driver.client.createVolume(
        createRequest(uniqueName("big"), { capacityRange: { requiredBytes: 200 * gibibyteBytes, limitBytes: 0 } }),
      );
      const volumeId = volume?.volumeId ?? "";
      try {
        return await driver.client.createSnapshot(snapshotRequest(uniqueName("s"), volumeId));
      } finally {
        // Its capacity counts against the node's: later rules measure GetCapacity.
        await driver.client.deleteVolume({ volumeId, secrets: {} });
      }
    },
    code: "ResourceExhausted",
    message: /not enough space for a snapshot of volume .*214748364800 bytes/,
  },
  {
    title: "CreateSnapshot while one of the same name is still being cut is Aborted",
    needs: { controller: "CREATE_DELETE_SNAPSHOT" },
    unreachable: onlyOnHost,
    call: async ({ driver, volume }) => {
      const name = uniqueName("s");
      const source = await volume();
      const copy = holdNext(driver.host, "copyTree");
      const first = driver.client.createSnapshot(snapshotRequest(name, source));
      await copy.started;
      try {
        return await driver.client.createSnapshot(snapshotRequest(name, source));
      } finally {
        copy.release();
        await first;
      }
    },
    code: "Aborted",
    message: /already in progress/,
  },
  {
    title: "DeleteSnapshot while that snapshot is still being deleted is Aborted",
    needs: { controller: "CREATE_DELETE_SNAPSHOT" },
    unreachable: onlyOnHost,
    call: async ({ driver, volume }) => {
      const snapshotId = await takeSnapshot(driver, await volume());
      const removal = holdNext(driver.host, "unlink");
      const first = driver.client.deleteSnapshot({ snapshotId, secrets: {} });
      await removal.started;
      try {
        return await driver.client.deleteSnapshot({ snapshotId, secrets: {} });
      } finally {
        removal.release();
        await first;
      }
    },
    code: "Aborted",
    message: /already in progress/,
  },
  {
    title: "DeleteSnapshot of a snapshot a CreateVolume is restoring from is FailedPrecondition",
    needs: { controller: "CREATE_DELETE_SNAPSHOT" },
    unreachable: onlyOnHost,
    call: async ({ driver, volume }) => {
      const snapshotId = await takeSnapshot(driver, await volume());
      const copy = holdNext(driver.host, "copyTree");
      const restore = driver.client.createVolume(
        createRequest(uniqueName("r"), { volumeContentSource: { snapshot: { snapshotId } } }),
      );
      await copy.started;
      try {
        return await driver.client.deleteSnapshot({ snapshotId, secrets: {} });
      } finally {
        copy.release();
        await restore;
      }
    },
    code: "FailedPrecondition",
    message: /snapshot .* is in use: a volume is being restored from it/,
  },
  {
    title: "DeleteSnapshot without snapshot_id is InvalidArgument",
    needs: { controller: "CREATE_DELETE_SNAPSHOT" },
    call: ({ driver }) => driver.client.deleteSnapshot({ snapshotId: "", secrets: {} }),
    code: "InvalidArgument",
    message: /snapshot_id is required/,
  },
  {
    title: "ListSnapshots with a starting_token the driver did not hand out is Aborted",
    needs: { controller: "LIST_SNAPSHOTS" },
    call: ({ driver }) => driver.client.listSnapshots(listSnapshotsRequest({ startingToken: "not-a-token" })),
    code: "Aborted",
  },
  {
    title: "CreateVolume from a snapshot that does not exist is NotFound",
    needs: { controller: "CREATE_DELETE_SNAPSHOT" },
    call: ({ driver }) =>
      driver.client.createVolume(
        createRequest(uniqueName("r"), { volumeContentSource: { snapshot: { snapshotId: "no-such-snapshot" } } }),
      ),
    code: "NotFound",
  },
  {
    title: "CreateVolume cloning a volume that does not exist is NotFound",
    needs: { controller: "CLONE_VOLUME" },
    call: ({ driver }) =>
      driver.client.createVolume(
        createRequest(uniqueName("c"), { volumeContentSource: { volume: { volumeId: "no-such-volume" } } }),
      ),
    code: "NotFound",
  },
  {
    title: "CreateVolume from a snapshot bigger than the requested capacity is OutOfRange",
    needs: { controller: "CREATE_DELETE_SNAPSHOT" },
    call: async ({ driver, volume }) => {
      const taken = await driver.client.createSnapshot(snapshotRequest(uniqueName("s"), await volume()));
      const snapshotId = taken.snapshot?.snapshotId ?? "";
      return driver.client.createVolume(
        createRequest(uniqueName("r"), {
          capacityRange: { requiredBytes: 1024 * 1024, limitBytes: 1024 * 1024 },
          volumeContentSource: { snapshot: { snapshotId } },
        }),
      );
    },
    code: "OutOfRange",
    message: /smaller than snapshot/,
  },
];

const successRules: SuccessRule[] = [
  {
    title: "CreateVolume of the longest name gives a volume id of at most 128 bytes that the driver's own calls accept",
    needs: { controller: "CREATE_DELETE_VOLUME" },
    check: async ({ driver }) => {
      const { volume } = await driver.client.createVolume(createRequest("n".repeat(128)));
      const volumeId = volume?.volumeId ?? "";
      assert.ok(Buffer.byteLength(volumeId) <= 128, `${volumeId} is ${Buffer.byteLength(volumeId)} bytes`);
      const validated = await driver.client.validateVolumeCapabilities(validateRequest(volumeId, [rwo]));
      assert.notEqual(validated.confirmed, null, validated.message);
      await driver.client.deleteVolume({ volumeId, secrets: {} });
    },
  },
  {
    title: "DeleteVolume and ControllerUnpublishVolume of a volume that does not exist succeed",
    needs: { controller: "CREATE_DELETE_VOLUME" },
    check: async ({ driver }) => {
      await driver.client.deleteVolume({ volumeId: "no-such-volume", secrets: {} });
      if (driver.controllerCaps.has("PUBLISH_UNPUBLISH_VOLUME")) {
        await driver.client.controllerUnpublishVolume({ volumeId: "no-such-volume", nodeId: nodeA, secrets: {} });
      }
    },
  },
  {
    title: "ListVolumes honours max_entries and hands out a next_token that lists the rest",
    needs: { controller: "LIST_VOLUMES" },
    check: async ({ driver, volume }) => {
      await volume();
      await volume();
      const all = await driver.client.listVolumes({ maxEntries: 0, startingToken: "" });
      assert.equal(all.nextToken, "");
      const first = await driver.client.listVolumes({ maxEntries: 1, startingToken: "" });
      assert.equal(first.entries.length, 1);
      assert.notEqual(first.nextToken, "");
      const rest = await driver.client.listVolumes({ maxEntries: 0, startingToken: first.nextToken });
      assert.deepEqual(
        [...first.entries, ...rest.entries].map((entry) => entry.volume?.volumeId),
        all.entries.map((entry) => entry.volume?.volumeId),
      );
    },
  },
  {
    title: "ListVolumes names the nodes a volume is published to, on every page (LIST_VOLUMES_PUBLISHED_NODES)",
    needs: { controller: "LIST_VOLUMES_PUBLISHED_NODES" },
    check: async ({ driver, volume }) => {
      const published = await volume();
      await driver.client.controllerPublishVolume(publishTo(published, nodeA));
      const unpublished = await volume();
      const nodesOf = new Map<string, string[]>();
      let token = "";
      for (let page = 0; page < 1000; page++) {
        const listed = await driver.client.listVolumes({ maxEntries: 1, startingToken: token });
        for (const entry of listed.entries) {
          nodesOf.set(entry.volume?.volumeId ?? "", entry.status?.publishedNodeIds ?? []);
        }
        token = listed.nextToken;
        if (token === "") break;
      }
      assert.deepEqual(nodesOf.get(published), [nodeA]);
      assert.deepEqual(nodesOf.get(unpublished), []);
      await driver.client.controllerUnpublishVolume({ volumeId: published, nodeId: nodeA, secrets: {} });
      const after = await driver.client.listVolumes({ maxEntries: 0, startingToken: "" });
      const entry = after.entries.find((item) => item.volume?.volumeId === published);
      assert.deepEqual(entry?.status?.publishedNodeIds, []);
    },
  },
  {
    title:
      "GetCapacity falls by the size of a new volume, rises again when it is deleted, and bounds maximum_volume_size",
    needs: { controller: "GET_CAPACITY" },
    check: async ({ driver }) => {
      const capacity = () =>
        driver.client.getCapacity({ volumeCapabilities: [rwo], parameters: {}, accessibleTopology: null });
      const before = await capacity();
      assert.ok(before.availableCapacity > 0, "a driver with room reports it");
      const created = await driver.client.createVolume(createRequest(uniqueName("cap")));
      const volumeId = created.volume?.volumeId ?? "";
      const during = await capacity();
      assert.equal(before.availableCapacity - during.availableCapacity, 10 * 1024 * 1024);
      assert.ok((during.maximumVolumeSize?.value ?? 0) <= during.availableCapacity);
      await driver.client.deleteVolume({ volumeId, secrets: {} });
      assert.equal((await capacity()).availableCapacity, before.availableCapacity);
    },
  },
  {
    title: "NodeUnpublishVolume removes the target path NodePublishVolume made, and succeeds again",
    needs: "always",
    check: async ({ driver, stagedVolume }) => {
      const { volumeId, stagingPath, publishContext } = await stagedVolume();
      const target = targetPathOf(uniqueName("uid"), "pv");
      await driver.client.nodePublishVolume({ ...publishRequest(volumeId, stagingPath, target), publishContext });
      assert.equal((await driver.host.stat(target)).type, "directory");
      await driver.client.nodeUnpublishVolume({ volumeId, targetPath: target });
      await expectErrno(driver.host.stat(target), "ENOENT");
      await driver.client.nodeUnpublishVolume({ volumeId, targetPath: target });
    },
  },
  {
    title: "ControllerExpandVolume grows a volume, is idempotent, and never shrinks it",
    needs: { controller: "EXPAND_VOLUME" },
    check: async ({ driver, volume }) => {
      const volumeId = await volume();
      const grown = await controllerExpandOf(driver, volumeId, 20 * mebibyteBytes);
      assert.equal(grown.capacityBytes, 20 * mebibyteBytes);
      assert.equal(grown.nodeExpansionRequired, true, "a mount volume's filesystem grows on the node");
      assert.equal((await controllerExpandOf(driver, volumeId, 20 * mebibyteBytes)).capacityBytes, 20 * mebibyteBytes);
      assert.equal((await controllerExpandOf(driver, volumeId, 15 * mebibyteBytes)).capacityBytes, 20 * mebibyteBytes);
      if (driver.controllerCaps.has("LIST_VOLUMES")) {
        const listed = await driver.client.listVolumes({ maxEntries: 0, startingToken: "" });
        const entry = listed.entries.find((candidate) => candidate.volume?.volumeId === volumeId);
        assert.equal(entry?.volume?.capacityBytes, 20 * mebibyteBytes);
      }
    },
  },
  {
    title: "NodeExpandVolume of a staged volume after ControllerExpandVolume reports the new size",
    needs: { node: "EXPAND_VOLUME" },
    check: async ({ driver, stagedVolume }) => {
      const { volumeId, stagingPath, publishContext } = await stagedVolume();
      if (driver.controllerCaps.has("EXPAND_VOLUME")) await controllerExpandOf(driver, volumeId, 30 * mebibyteBytes);
      const volumePath = driver.nodeCaps.has("STAGE_UNSTAGE_VOLUME")
        ? stagingPath
        : targetPathOf(uniqueName("uid"), "pv");
      if (volumePath !== stagingPath) {
        await driver.client.nodePublishVolume({ ...publishRequest(volumeId, stagingPath, volumePath), publishContext });
      }
      const expanded = await driver.client.nodeExpandVolume({
        volumeId,
        volumePath,
        capacityRange: { requiredBytes: 30 * mebibyteBytes, limitBytes: 0 },
        stagingTargetPath: driver.nodeCaps.has("STAGE_UNSTAGE_VOLUME") ? stagingPath : "",
        volumeCapability: rwo,
        secrets: {},
      });
      assert.equal(expanded.capacityBytes, 30 * mebibyteBytes);
    },
  },
  {
    title: "GetPluginCapabilities announces VolumeExpansion when ControllerExpandVolume is offered",
    needs: { controller: "EXPAND_VOLUME" },
    check: async ({ driver }) => {
      const { capabilities } = await driver.client.getPluginCapabilities({});
      const modes = capabilities.flatMap((capability) =>
        capability.volumeExpansion ? [capability.volumeExpansion.type] : [],
      );
      assert.equal(modes.length, 1, `${driver.name} announces ${JSON.stringify(capabilities)}`);
    },
  },
  {
    title: "NodeGetInfo names the node",
    needs: "always",
    check: async ({ driver }) => {
      assert.equal((await driver.client.nodeGetInfo({})).nodeId, nodeA);
    },
  },
  {
    title: "CreateSnapshot is idempotent on name, DeleteSnapshot on the id, and ListSnapshots pages and filters",
    needs: { controller: "LIST_SNAPSHOTS" },
    check: async ({ driver, volume }) => {
      const source = await volume();
      const name = uniqueName("s");
      const first = await driver.client.createSnapshot(snapshotRequest(name, source));
      const again = await driver.client.createSnapshot(snapshotRequest(name, source));
      assert.equal(again.snapshot?.snapshotId, first.snapshot?.snapshotId);
      assert.equal(first.snapshot?.sourceVolumeId, source);
      assert.equal(first.snapshot?.readyToUse, true);
      assert.ok((first.snapshot?.creationTime?.seconds ?? 0) > 0, "a creation_time");
      await driver.client.createSnapshot(snapshotRequest(uniqueName("s"), source));
      const ofSource = await driver.client.listSnapshots(listSnapshotsRequest({ sourceVolumeId: source }));
      assert.equal(ofSource.entries.length, 2);
      const page = await driver.client.listSnapshots(listSnapshotsRequest({ sourceVolumeId: source, maxEntries: 1 }));
      assert.equal(page.entries.length, 1);
      const rest = await driver.client.listSnapshots(
        listSnapshotsRequest({ sourceVolumeId: source, startingToken: page.nextToken }),
      );
      assert.equal(rest.entries.length, 1);
      assert.notEqual(rest.entries[0]?.snapshot?.snapshotId, page.entries[0]?.snapshot?.snapshotId);
      const snapshotId = first.snapshot?.snapshotId ?? "";
      const one = await driver.client.listSnapshots(listSnapshotsRequest({ snapshotId }));
      assert.deepEqual(
        one.entries.map((entry) => entry.snapshot?.snapshotId),
        [snapshotId],
      );
      await driver.client.deleteSnapshot({ snapshotId, secrets: {} });
      await driver.client.deleteSnapshot({ snapshotId, secrets: {} });
      const gone = await driver.client.listSnapshots(listSnapshotsRequest({ snapshotId }));
      assert.equal(gone.entries.length, 0);
    },
  },
  {
    title: "CreateVolume from a snapshot and from a volume reports its content source",
    needs: { controller: "CLONE_VOLUME" },
    check: async ({ driver, volume }) => {
      const source = await volume();
      const taken = await driver.client.createSnapshot(snapshotRequest(uniqueName("s"), source));
      const snapshotId = taken.snapshot?.snapshotId ?? "";
      const restored = await driver.client.createVolume(
        createRequest(uniqueName("r"), { volumeContentSource: { snapshot: { snapshotId } } }),
      );
      assert.deepEqual(restored.volume?.contentSource, { snapshot: { snapshotId } });
      const cloned = await driver.client.createVolume(
        createRequest(uniqueName("c"), { volumeContentSource: { volume: { volumeId: source } } }),
      );
      assert.deepEqual(cloned.volume?.contentSource, { volume: { volumeId: source } });
    },
  },
];

function validateRequest(volumeId: string, volumeCapabilities: VolumeCapability[]) {
  return { volumeId, volumeContext: {}, volumeCapabilities, parameters: {}, secrets: {}, mutableParameters: {} };
}

function statsOf(driver: DriverUnderTest, volumeId: string, volumePath: string) {
  return driver.client.nodeGetVolumeStats({ volumeId, volumePath, stagingTargetPath: "" });
}

const mebibyteBytes = 1024 ** 2;
const gibibyteBytes = 1024 ** 3;

function controllerExpandOf(driver: DriverUnderTest, volumeId: string, requiredBytes: number) {
  return driver.client.controllerExpandVolume({
    volumeId,
    capacityRange: { requiredBytes, limitBytes: 0 },
    secrets: {},
    volumeCapability: rwo,
  });
}

function expandOf(driver: DriverUnderTest, volumeId: string, volumePath: string) {
  return driver.client.nodeExpandVolume({
    volumeId,
    volumePath,
    capacityRange: null,
    stagingTargetPath: "",
    volumeCapability: rwo,
    secrets: {},
  });
}

/** Why the rule does not apply to the driver, or undefined when it does. */
function notApplicable(needs: Needs, driver: DriverUnderTest): string | undefined {
  if (needs === "always") return undefined;
  if ("controller" in needs) {
    return driver.controllerCaps.has(needs.controller)
      ? undefined
      : `${driver.name} does not offer ${needs.controller}`;
  }
  if ("notController" in needs) {
    return driver.controllerCaps.has(needs.notController) ? `${driver.name} offers ${needs.notController}` : undefined;
  }
  return driver.nodeCaps.has(needs.node) ? undefined : `${driver.name} does not offer ${needs.node}`;
}

function contextFor(driver: DriverUnderTest): RuleContext {
  const volume = async (): Promise<string> => {
    const { volume: created } = await driver.client.createVolume(createRequest(uniqueName("pvc")));
    const volumeId = created?.volumeId ?? "";
    if (driver.world.disks.has(volumeId))
      driver.world.disks.setFaults(volumeId, { attachLatencyMs: 0, detachLatencyMs: 0 });
    return volumeId;
  };
  return {
    driver,
    volume,
    stagedVolume: async () => {
      const volumeId = await volume();
      const publishContext = driver.controllerCaps.has("PUBLISH_UNPUBLISH_VOLUME")
        ? (await driver.client.controllerPublishVolume(publishTo(volumeId, nodeA))).publishContext
        : {};
      const stagingPath = stagingPathOf(driver.name, volumeId);
      if (driver.nodeCaps.has("STAGE_UNSTAGE_VOLUME")) {
        await driver.client.nodeStageVolume({ ...stageRequest(volumeId, stagingPath), publishContext });
      }
      return { volumeId, stagingPath, publishContext };
    },
  };
}

describe("the CSI spec's rules, in every bundled driver over a Unix socket", () => {
  const drivers: DriverUnderTest[] = [];
  let socketDir: string;

  before(async () => {
    socketDir = mkdtempSync(join(tmpdir(), "kvol-csi-rules-"));
    const clock = new RealClock();
    // hostpath twice: as deployed by default, and with attach (PUBLISH_UNPUBLISH_VOLUME, published nodes in ListVolumes).
    for (const name of [hostpathDriverName, hostpathWithAttach, fuseDriverName, mockDriverName, diskDriverName]) {
      const world = new SimWorld(clock, new Rng(7));
      const host = world.addNode(nodeA);
      world.addNode(nodeB);
      const implementation: BundledDriver | undefined =
        name === mockDriverName
          ? new MockDriver({
              clock,
              nodeId: nodeA,
              host,
              isKnownNode: (id) => id === nodeA || id === nodeB,
            }).implementations()
          : name === hostpathWithAttach
            ? createHostpathDriver({
                host,
                clock,
                nodeId: nodeA,
                attachRequired: true,
                nodeLocalTopology: false,
                isKnownNode: (id) => id === nodeA || id === nodeB,
              })
            : createBundledDriver(name, { host, clock, nodeId: nodeA, disks: world.disks });
      assert.ok(implementation !== undefined, name);
      const endpoint = unixEndpoint(join(socketDir, `${drivers.length}.sock`));
      const server = await serveCsi({ endpoint, ...implementation });
      const client = connectCsiSocket({ endpoint, clock, callTimeoutMs });
      const controller = await client.controllerGetCapabilities({});
      const node = await client.nodeGetCapabilities({});
      drivers.push({
        name,
        client,
        host,
        world,
        server,
        controllerCaps: new Set(controller.capabilities.map((capability) => capability.rpc?.type as ControllerRpcType)),
        nodeCaps: new Set(node.capabilities.map((capability) => capability.rpc?.type as NodeRpcType)),
      });
    }
  });

  after(async () => {
    for (const driver of drivers) {
      driver.client.close();
      driver.server.kill();
    }
    rmSync(socketDir, { recursive: true, force: true });
  });

  async function eachDriver(t: TestContext, body: (driver: DriverUnderTest) => Promise<void>): Promise<void> {
    for (const driver of drivers) await t.test(driver.name, () => body(driver));
  }

  for (const rule of errorRules) {
    it(rule.title, async (t) => {
      await eachDriver(t, async (driver) => {
        const why = notApplicable(rule.needs, driver) ?? rule.unreachable?.(driver);
        if (why !== undefined) return void t.diagnostic(`${driver.name}: skipped, ${why}`);
        await rejectsWithCode(rule.call(contextFor(driver)), rule.code, rule.message);
      });
    });
  }

  for (const rule of successRules) {
    it(rule.title, async (t) => {
      await eachDriver(t, async (driver) => {
        const why = notApplicable(rule.needs, driver);
        if (why !== undefined) return void t.diagnostic(`${driver.name}: skipped, ${why}`);
        await rule.check(contextFor(driver));
      });
    });
  }
});
