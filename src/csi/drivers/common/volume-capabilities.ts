/**
 * What a driver accepts in a VolumeCapability: the access type (mount or block) and the access
 * modes it can honour. CreateVolume and the node RPCs reject an unsupported capability with
 * InvalidArgument; ValidateVolumeCapabilities answers OK without `confirmed` and says why.
 */
import { CsiError } from "../../grpc/errors.ts";
import type { AccessModeName, VolumeCapability } from "../../proto/types.ts";

export type AccessType = "mount" | "block";

export interface CapabilitySupport {
  driverName: string;
  /** Access modes the driver honours. */
  accessModes: ReadonlySet<AccessModeName>;
  /** Whether raw block volumes are offered. */
  block: boolean;
}

/** Modes that keep the volume on one node: what a node-local volume can offer. */
export const singleNodeAccessModes: ReadonlySet<AccessModeName> = new Set<AccessModeName>([
  "SINGLE_NODE_WRITER",
  "SINGLE_NODE_READER_ONLY",
  "SINGLE_NODE_SINGLE_WRITER",
  "SINGLE_NODE_MULTI_WRITER",
]);

/** Every defined mode: shared storage offers them all. */
export const allAccessModes: ReadonlySet<AccessModeName> = new Set<AccessModeName>([
  ...singleNodeAccessModes,
  "MULTI_NODE_READER_ONLY",
  "MULTI_NODE_SINGLE_WRITER",
  "MULTI_NODE_MULTI_WRITER",
]);

/** Why the capability is malformed or unsupported, or undefined when the driver can honour it. */
export function capabilityProblem(capability: VolumeCapability, support: CapabilitySupport): string | undefined {
  const hasBlock = capability.block !== undefined;
  const hasMount = capability.mount !== undefined;
  if (hasBlock === hasMount) return "exactly one of block and mount must be set";
  if (hasBlock && !support.block) return `block access type is not supported by ${support.driverName}`;
  const mode = capability.accessMode?.mode;
  if (mode === undefined) return "access_mode is required";
  if (typeof mode === "number" || mode === "UNKNOWN") return `access_mode ${String(mode)} is not a known access mode`;
  if (!support.accessModes.has(mode)) return `access mode ${mode} is not supported by ${support.driverName}`;
  return undefined;
}

export function accessTypeOf(capability: VolumeCapability): AccessType {
  return capability.block === undefined ? "mount" : "block";
}

/** A REQUIRED single capability: InvalidArgument naming the field when it is absent or unsupported. */
export function requireCapability(
  capability: VolumeCapability | null,
  field: string,
  rpc: string,
  support: CapabilitySupport,
): AccessType {
  if (capability === null) throw new CsiError("InvalidArgument", `${rpc}: ${field} is required`);
  const problem = capabilityProblem(capability, support);
  if (problem !== undefined) throw new CsiError("InvalidArgument", `${rpc}: ${field}: ${problem}`);
  return accessTypeOf(capability);
}

/**
 * A REQUIRED capability list (CreateVolume): at least one entry, every entry supported, and all of
 * one access type, since a volume is either a filesystem or a raw device.
 */
export function requireCapabilities(
  capabilities: readonly VolumeCapability[],
  field: string,
  rpc: string,
  support: CapabilitySupport,
): AccessType {
  if (capabilities.length === 0) throw new CsiError("InvalidArgument", `${rpc}: ${field} is required`);
  const types = capabilities.map((capability, index) =>
    requireCapability(capability, `${field}[${index}]`, rpc, support),
  );
  const [first] = types;
  if (first === undefined || types.some((type) => type !== first)) {
    throw new CsiError(
      "InvalidArgument",
      `${rpc}: ${field} mixes block and mount access types; a volume is one or the other`,
    );
  }
  return first;
}

/** True for modes that let the volume be used on one node only. */
export function isSingleNodeMode(capability: VolumeCapability): boolean {
  const mode = capability.accessMode?.mode;
  return typeof mode === "string" && singleNodeAccessModes.has(mode);
}

/** MountVolume.mount_flags of a mount capability (none for block or no capability). */
export function mountFlagsOf(capability: VolumeCapability | null): string[] {
  return [...(capability?.mount?.mountFlags ?? [])];
}

/** True for the reader-only modes: the volume is then published read-only whatever `readonly` says. */
export function isReaderOnly(capability: VolumeCapability | null): boolean {
  const mode = capability?.accessMode?.mode;
  return mode === "SINGLE_NODE_READER_ONLY" || mode === "MULTI_NODE_READER_ONLY";
}
