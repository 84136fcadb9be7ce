/**
 * The idempotent bind mount behind NodeStage and NodePublish: make `target` show `source`.
 *
 * - Already showing `source` with the same read-only flag: done (a retried call succeeds).
 * - Showing something else, or `source` with the other flag: AlreadyExists (the spec's answer for a
 *   target in use with incompatible arguments).
 * - A corrupted mount (its FUSE daemon died, ENOTCONN): unmounted, then mounted afresh. This is what
 *   lets the kubelet repair a pod's volume by publishing it again, without restarting the pod.
 * - Nothing there: the directory (or, for a block device, the file) is created, then bound.
 */
import type { Host } from "../../../host/host.ts";
import type { Mounter } from "../../../host/mount/mounter.ts";
import { CsiError } from "../../grpc/errors.ts";
import type { VolumeCapability } from "../../proto/types.ts";
import { blockTargetFileMode, mountDirMode } from "./constants.ts";
import { step } from "./host-failures.ts";
import { isReadOnlyMount, mountStateAt, showsSameFile } from "./mount-state.ts";
import { isReaderOnly, mountFlagsOf } from "./volume-capabilities.ts";

interface BindRequest {
  rpc: string;
  /** The request field `target` came from (`staging_target_path`, `target_path`), for messages. */
  targetField: string;
  source: string;
  target: string;
  readonly: boolean;
  /** Extra mount flags (MountVolume.mount_flags). */
  flags: readonly string[];
  /** What to create at `target` when it is missing: a directory, or a file for a block device. */
  targetKind: "directory" | "file";
}

export type BindOutcome = "mounted" | "alreadyMounted" | "repaired";

export async function bindMountIdempotently(host: Host, mounter: Mounter, request: BindRequest): Promise<BindOutcome> {
  const { rpc, target } = request;
  const state = await step(`${rpc}: checking ${target}`, () => mountStateAt(host, target));
  if (state.kind === "mounted") {
    await checkExistingBind(host, request, isReadOnlyMount(state.entry));
    return "alreadyMounted";
  }
  if (state.kind === "corrupted") {
    await step(`${rpc}: unmounting the corrupted mount at ${target} (${state.error.message})`, () =>
      mounter.unmount(target),
    );
  }
  if (state.kind === "absent") await step(`${rpc}: creating ${target}`, () => createTarget(host, request));
  const options = ["bind", ...(request.readonly ? ["ro"] : []), ...request.flags];
  await step(`${rpc}: bind mount of ${request.source} on ${target}`, () =>
    mounter.mount(request.source, target, "", options, { withSystemd: false }),
  );
  return state.kind === "corrupted" ? "repaired" : "mounted";
}

/** What NodePublishVolume binds: a staged directory, or in Block mode the volume's device file. */
interface PublishBind {
  rpc: string;
  source: string;
  target: string;
  block: boolean;
  request: { readonly: boolean; volumeCapability: VolumeCapability | null };
}

/**
 * NodePublishVolume's bind onto `target_path`: read-only when the request or a reader-only access
 * mode says so, with the capability's mount flags for a filesystem, onto a file for a device.
 */
export function bindPublished(host: Host, mounter: Mounter, bind: PublishBind): Promise<BindOutcome> {
  const { request } = bind;
  return bindMountIdempotently(host, mounter, {
    rpc: bind.rpc,
    targetField: "target_path",
    source: bind.source,
    target: bind.target,
    readonly: request.readonly || isReaderOnly(request.volumeCapability),
    flags: bind.block ? [] : mountFlagsOf(request.volumeCapability),
    targetKind: bind.block ? "file" : "directory",
  });
}

async function checkExistingBind(host: Host, request: BindRequest, mountedReadOnly: boolean): Promise<void> {
  const same = await step(`${request.rpc}: comparing ${request.target} with ${request.source}`, () =>
    showsSameFile(host, request.target, request.source),
  );
  if (!same) {
    throw new CsiError(
      "AlreadyExists",
      `${request.rpc}: ${request.targetField} ${request.target} already holds another mount; unmount it first`,
    );
  }
  if (mountedReadOnly !== request.readonly) {
    throw new CsiError(
      "AlreadyExists",
      `${request.rpc}: ${request.targetField} ${request.target} is already mounted ` +
        `${mountedReadOnly ? "read-only" : "read-write"}, not ${request.readonly ? "read-only" : "read-write"}`,
    );
  }
}

async function createTarget(host: Host, request: BindRequest): Promise<void> {
  if (request.targetKind === "directory") {
    await host.mkdir(request.target, mountDirMode, { recursive: true });
    return;
  }
  const parent = request.target.slice(0, request.target.lastIndexOf("/")) || "/";
  await host.mkdir(parent, mountDirMode, { recursive: true });
  await host.writeFile(request.target, "", blockTargetFileMode);
}
