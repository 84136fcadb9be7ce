/**
 * Test support for the bundled drivers: assertions on CSI status codes, the requests kubelet and
 * the sidecars send, and the kubelet paths they name.
 */
import assert from "node:assert/strict";
import type { Host } from "../../../host/host.ts";
import { csiPublishTargetPath, csiStagingPath, defaultKubeletRootDir } from "../../../volume/paths.ts";
import { CsiError, type CsiStatusName } from "../../grpc/errors.ts";
import type {
  CreateVolumeRequest,
  NodePublishVolumeRequest,
  NodeStageVolumeRequest,
  VolumeCapability,
} from "../../proto/types.ts";

export const mebibyteBytes = 1024 ** 2;

/** Awaits a call that must fail with `code`, and a message matching `pattern` when given. */
export async function rejectsWithCode(
  call: Promise<unknown>,
  code: CsiStatusName,
  pattern?: RegExp,
): Promise<CsiError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof CsiError, `expected a CsiError ${code}, got ${String(error)}`);
    assert.equal(error.code, code, `expected ${code}, got ${error.code}: ${error.statusMessage}`);
    if (pattern !== undefined) assert.match(error.statusMessage, pattern);
    return error;
  }
  assert.fail(`the call succeeded; expected ${code}`);
}

export function mountCapability(
  mode: VolumeCapability["accessMode"] = { mode: "SINGLE_NODE_WRITER" },
): VolumeCapability {
  return { mount: { fsType: "", mountFlags: [], volumeMountGroup: "" }, accessMode: mode };
}

export function blockCapability(): VolumeCapability {
  return { block: {}, accessMode: { mode: "SINGLE_NODE_WRITER" } };
}

export function createRequest(name: string, overrides: Partial<CreateVolumeRequest> = {}): CreateVolumeRequest {
  return {
    name,
    capacityRange: { requiredBytes: 10 * mebibyteBytes, limitBytes: 0 },
    volumeCapabilities: [mountCapability()],
    parameters: {},
    secrets: {},
    volumeContentSource: null,
    accessibilityRequirements: null,
    mutableParameters: {},
    ...overrides,
  };
}

/** Where kubelet stages a volume of `driver` (spec §5.9). */
export function stagingPathOf(driver: string, volumeId: string): string {
  return csiStagingPath(defaultKubeletRootDir, driver, volumeId);
}

/** Where kubelet publishes a volume for a pod (spec §6.1). */
export function targetPathOf(podUid: string, pvName: string): string {
  return csiPublishTargetPath(defaultKubeletRootDir, podUid, pvName);
}

export function stageRequest(
  volumeId: string,
  stagingTargetPath: string,
  capability: VolumeCapability = mountCapability(),
): NodeStageVolumeRequest {
  return {
    volumeId,
    publishContext: {},
    stagingTargetPath,
    volumeCapability: capability,
    secrets: {},
    volumeContext: {},
  };
}

export function publishRequest(
  volumeId: string,
  stagingTargetPath: string,
  targetPath: string,
  overrides: Partial<NodePublishVolumeRequest> = {},
): NodePublishVolumeRequest {
  return {
    volumeId,
    publishContext: {},
    stagingTargetPath,
    targetPath,
    volumeCapability: mountCapability(),
    readonly: false,
    secrets: {},
    volumeContext: {},
    ...overrides,
  };
}

/** The mount table entry at `path`, if any. */
export async function mountAt(host: Host, path: string) {
  return (await host.mountInfo()).findLast((mount) => mount.mountPoint === path);
}

export function text(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}
