/**
 * FUSE daemons and the mounts they serve. A FUSE program (s3fs serving an object-store bucket,
 * bindfs mirroring a directory of the node) starts as a process and mounts `fuse.<program>` on its
 * target. The kernel mount stays in the mount table for as long as nobody unmounts it, but it is
 * only usable while the daemon lives: once the daemon dies, every access under the mount — stat of
 * the mount point included — fails with ENOTCONN ("transport endpoint is not connected"; seed 003,
 * spec §8.3). Unmounting stops the daemon, as a real FUSE daemon exits when its mount goes away.
 *
 * The daemon joins the scope of whoever started it: the agent's (dies with a kubelet or plugin
 * restart) or its own (started under `systemd-run --scope`, it survives the agent).
 */
import { posix } from "node:path";
import { type CommandResult, type DaemonScope, HostError } from "../../host.ts";
import type { SimFilesystem } from "../filesystem.ts";
import { filesystemOf, inodeAt } from "../path-walk.ts";
import { genericFailureExitStatus, mountFailureExitStatus } from "../sim-constants.ts";
import type { BootState, SimKernel } from "../sim-kernel.ts";
import type { SimProcess } from "../sim-processes.ts";
import type { Cancellation } from "../sim-wait.ts";
import { type CommandContext, type CommandHandler, failed, succeeded } from "./command-context.ts";
import { errnoOf, strerror } from "./errno-text.ts";
import { type MountRequest, mountOptionsFor } from "./mount-args.ts";
import { unknownFsTypeText } from "./util-linux-messages.ts";

interface FuseBacking {
  fs: SimFilesystem;
  rootIno: number;
  rootPath: string;
  /** What mountinfo shows as the source. */
  source: string;
}

type BackingResolver = (
  kernel: SimKernel,
  state: BootState,
  source: string,
  cancellation: Cancellation,
) => Promise<FuseBacking | string>;

/** A FUSE program the node model knows: what it serves, and how the kernel lists its mount. */
interface FuseProgramModel {
  resolve: BackingResolver;
  /**
   * The mount's type. A libfuse 2 program (s3fs 1.90) gets `fuse.<program>`; libfuse 3 adds no
   * subtype unless the program asks, so Debian 12's bindfs 1.14 (libfuse 3) shows plain `fuse`.
   */
  fsType: string;
  superOptions: readonly string[];
}

const fuseSuperOptions = ["rw", "user_id=0", "group_id=0"];

const fusePrograms: ReadonlyMap<string, FuseProgramModel> = new Map<string, FuseProgramModel>([
  ["s3fs", { resolve: resolveBucket, fsType: "fuse.s3fs", superOptions: fuseSuperOptions }],
  // bindfs run by root adds allow_other (and so default_permissions), as on a real node.
  [
    "bindfs",
    {
      resolve: resolveHostDirectory,
      fsType: "fuse",
      superOptions: [...fuseSuperOptions, "default_permissions", "allow_other"],
    },
  ],
  // The FUSE filesystem of the bundled fuse.csi.kvol.io driver: serves a directory of the node, as bindfs does.
  ["kvolfs", { resolve: resolveHostDirectory, fsType: "fuse.kvolfs", superOptions: fuseSuperOptions }],
]);

export const fuseProgramNames: readonly string[] = [...fusePrograms.keys()];

export function isFuseProgram(command: string): boolean {
  return fusePrograms.has(command);
}

interface FuseDaemonRequest {
  program: string;
  source: string;
  target: string;
  args: readonly string[];
  scope: DaemonScope;
  name: string;
  /** The agent an "agent"-scope daemon belongs to (DaemonSpec.agent). */
  agent?: string;
  cancellation: Cancellation;
}

/** Starts the daemon and mounts its filesystem; on failure the daemon has already exited. */
export async function startFuseDaemon(
  kernel: SimKernel,
  state: BootState,
  request: FuseDaemonRequest,
): Promise<{ process: SimProcess; error: string | undefined }> {
  const process = state.processes.start({
    name: request.name,
    command: request.program,
    args: [...request.args],
    scope: request.scope,
    ...(request.agent === undefined ? {} : { agent: request.agent }),
  });
  const model = fusePrograms.get(request.program);
  const backing =
    model === undefined
      ? `${request.program}: not a FUSE program\n`
      : await model.resolve(kernel, state, request.source, request.cancellation);
  if (typeof backing === "string" || model === undefined) {
    state.processes.kill(process.info.pid);
    return { process, error: typeof backing === "string" ? backing : `${request.program}: not a FUSE program\n` };
  }
  const pid = process.info.pid;
  const superblock = kernel.anonymousSuperblock({
    fs: backing.fs,
    fsType: model.fsType,
    source: backing.source,
    superOptions: [...model.superOptions],
    accessCheck: async (_cancellation, syscall, path) => {
      if (!state.processes.isAlive(pid)) throw new HostError("ENOTCONN", syscall, path);
    },
    onUnused: () => state.processes.kill(pid),
  });
  try {
    await kernel.mount(
      request.target,
      {
        superblock,
        rootIno: backing.rootIno,
        rootPath: backing.rootPath,
        options: ["rw", "nosuid", "nodev", "relatime"],
      },
      request.cancellation,
    );
    return { process, error: undefined };
  } catch (error) {
    state.processes.kill(pid);
    if (request.cancellation.cancelled) throw error;
    return { process, error: `fuse: bad mount point \`${request.target}': ${strerror(errnoOf(error))}\n` };
  }
}

/** The source and mount point of a FUSE program's command line (`s3fs bucket /mnt -o opts -f`). */
export function fuseArguments(args: readonly string[]): { source: string; target: string } | undefined {
  const positionals: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? "";
    if (arg === "-o") index++;
    else if (!arg.startsWith("-")) positionals.push(arg);
  }
  const [source, target] = positionals;
  return source === undefined || target === undefined ? undefined : { source, target };
}

/** `mount -t fuse.<program> source target`: mount.fuse runs the program, which daemonizes. */
export async function mountFuseType(
  context: CommandContext,
  request: MountRequest,
  fsType: string,
): Promise<CommandResult> {
  const program = fsType.slice("fuse.".length);
  if (!context.isInstalled("mount.fuse") || !context.isInstalled(program) || !isFuseProgram(program)) {
    return failed(mountFailureExitStatus, unknownFsTypeText(context.kernel.options.utilLinux, request.target, fsType));
  }
  const source = request.source ?? program;
  const { error } = await startFuseDaemon(context.kernel, context.state, {
    program,
    source,
    target: request.target,
    args: [source, request.target, "-o", mountOptionsFor(request).join(",")],
    scope: context.scope,
    ...agentOf(context),
    name: `${program}:${request.target}`,
    cancellation: context.cancellation,
  });
  return error === undefined ? succeeded() : failed(mountFailureExitStatus, error);
}

/** The agent a daemon forked by the command belongs to: the caller's, unless it runs in a scope of its own. */
function agentOf(context: CommandContext): { agent?: string } {
  return context.scope === "agent" && context.agent !== undefined ? { agent: context.agent } : {};
}

/** Running a FUSE program directly (`s3fs bucket /mnt`): it mounts, daemonizes and exits 0. */
export function fuseProgramCommand(program: string): CommandHandler {
  return async (context, args) => {
    const parsed = fuseArguments(args);
    if (parsed === undefined)
      return failed(genericFailureExitStatus, `${program}: missing BUCKET or MOUNTPOINT argument\n`);
    const { error } = await startFuseDaemon(context.kernel, context.state, {
      program,
      ...parsed,
      args,
      scope: context.scope,
      ...agentOf(context),
      name: `${program}:${parsed.target}`,
      cancellation: context.cancellation,
    });
    return error === undefined ? succeeded() : failed(genericFailureExitStatus, error);
  };
}

async function resolveBucket(kernel: SimKernel, _state: BootState, source: string): Promise<FuseBacking | string> {
  const bucket = kernel.env.bucket(source);
  if (bucket === undefined) return `s3fs: bucket ${source} does not exist\n`;
  return { fs: bucket, rootIno: bucket.rootIno, rootPath: "/", source: "s3fs" };
}

async function resolveHostDirectory(
  _kernel: SimKernel,
  state: BootState,
  source: string,
  cancellation: Cancellation,
): Promise<FuseBacking | string> {
  try {
    const location = await state.walker.walk(source, "stat", cancellation, { followLast: true });
    if (inodeAt(location).type !== "directory") return `bindfs: ${source} is not a directory\n`;
    const rootPath =
      posix.join(location.mount.rootPath, posix.relative(location.mount.mountPoint, location.path)) || "/";
    return { fs: filesystemOf(location), rootIno: location.ino, rootPath, source };
  } catch (error) {
    if (cancellation.cancelled) throw error;
    return `bindfs: ${source}: ${strerror(errnoOf(error))}\n`;
  }
}
