/**
 * NFS mounts, as mount(8) hands them to the mount.nfs helper from nfs-utils. Without the helper,
 * mount(8) itself fails with util-linux's "wrong fs type … need a /sbin/mount.<type> helper program"
 * and exit status 32 (seed 002). With it, mount.nfs retries an unreachable server for `retry=`
 * minutes (2 by default) — the command hangs that long, and only that command — then gives up with
 * "Connection timed out". A mount made this way is a hard mount: any later access while the server
 * is down waits for it, and an export recreated on the server makes the mount's handles stale.
 */
import { type CommandResult, HostError } from "../../host.ts";
import type { SimFilesystem } from "../filesystem.ts";
import {
  mountFailureExitStatus,
  mountUsageExitStatus,
  nfsForegroundMountRetryDefaultMs,
  nfsRetryOptionUnitMs,
} from "../sim-constants.ts";
import { Cancellation, Signal, waitUntil } from "../sim-wait.ts";
import type { NfsExport, NfsServer } from "../world/nfs-server.ts";
import { type CommandContext, type CommandHandler, failed, succeeded } from "./command-context.ts";
import { errnoOf, strerror } from "./errno-text.ts";
import { filesystemOptionsOf, type MountRequest, mountOptionsFor, optionValue, parseMountArgs } from "./mount-args.ts";
import { checkTarget } from "./mount-target.ts";
import { wrongFsTypeText } from "./util-linux-messages.ts";

export const nfsFsTypes = new Set(["nfs", "nfs4"]);

/** What /proc/mounts shows for the negotiated protocol version. */
const nfsDefaultVersion = "4.2";

export async function mountNfs(context: CommandContext, request: MountRequest, fsType: string): Promise<CommandResult> {
  const helper = fsType === "nfs4" ? "mount.nfs4" : "mount.nfs";
  const source = request.source ?? "";
  if (!context.isInstalled(helper)) {
    return failed(
      mountFailureExitStatus,
      wrongFsTypeText(context.kernel.options.utilLinux, request.target, source, true),
    );
  }
  return mountWithHelper(context, request, source);
}

/** mount.nfs itself (also run directly: `mount.nfs server:/export /mnt -o …`). */
async function mountWithHelper(context: CommandContext, request: MountRequest, source: string): Promise<CommandResult> {
  const separator = source.indexOf(":/");
  if (separator <= 0) return failed(mountFailureExitStatus, "mount.nfs: remote share not in 'host:dir' format\n");
  const serverAddress = source.slice(0, separator);
  const exportPath = source.slice(separator + 1);
  if ((await checkTarget(context, request.target)) !== undefined) {
    return failed(mountFailureExitStatus, `mount.nfs: mount point ${request.target} does not exist\n`);
  }
  const server = context.kernel.env.nfsServer(serverAddress);
  const reached = await waitForServer(context, server, retryMs(filesystemOptionsOf(request)));
  if (!reached || server === undefined) return failed(mountFailureExitStatus, "mount.nfs: Connection timed out\n");
  const found = server.resolve(exportPath);
  if (found === undefined) {
    return failed(mountFailureExitStatus, `mount.nfs: access denied by server while mounting ${source}\n`);
  }
  const rootIno = lookupSubPath(found.nfsExport.fs, found.subPath);
  if (rootIno === undefined) {
    return failed(
      mountFailureExitStatus,
      `mount.nfs: mounting ${source} failed, reason given by server: No such file or directory\n`,
    );
  }
  const version = nfsVersionOf(filesystemOptionsOf(request));
  const client = new NfsClient(server, found.nfsExport);
  const superblock = context.kernel.anonymousSuperblock({
    fs: found.nfsExport.fs,
    fsType: version.startsWith("4") ? "nfs4" : "nfs",
    source,
    superOptions: nfsSuperOptions(context, request, server, version),
    accessCheck: (cancellation, syscall, path) => client.access(cancellation, syscall, path),
    flushBeforeUnmount: (cancellation) => client.flush(cancellation),
    abortPendingRequests: () => client.abortPending(),
  });
  await context.kernel.mount(
    request.target,
    { superblock, rootIno, rootPath: `/${found.subPath}`, options: mountOptionsFor(request) },
    context.cancellation,
  );
  return succeeded();
}

/** Waits until the server answers or the retry period ends; false when it never answered. */
async function waitForServer(
  context: CommandContext,
  server: NfsServer | undefined,
  periodMs: number,
): Promise<boolean> {
  if (server?.reachable === true) return true;
  const deadline = new Cancellation(context.cancellation);
  const retryExpired = new HostError("ETIMEDOUT", "connect", server?.address ?? "nfs server");
  const timer = context.kernel.env.clock.setTimer(periodMs, () => deadline.cancel(retryExpired));
  try {
    // A server nobody runs never answers: only the retry deadline (or a cancellation) ends the wait.
    await waitUntil(() => server?.reachable === true, server?.reachabilityChanged ?? new Signal(), deadline);
    return true;
  } catch (error) {
    if (error === retryExpired) return false;
    throw error;
  } finally {
    timer.cancel();
    deadline.dispose();
  }
}

/**
 * One mount's NFS client. A hard mount: while the server is down every request waits for it (the
 * operation, not the node); `umount -f` aborts the waiting requests with EIO; a handle from before
 * the export was recreated fails with ESTALE.
 */
class NfsClient {
  private readonly generationAtMount: number;
  private abortEpoch = 0;

  constructor(
    private readonly server: NfsServer,
    private readonly nfsExport: NfsExport,
  ) {
    this.generationAtMount = nfsExport.generation;
  }

  async access(cancellation: Cancellation, syscall: string, path: string): Promise<void> {
    this.checkFresh(syscall, path);
    const epoch = this.abortEpoch;
    await waitUntil(
      () => this.server.reachable || this.abortEpoch !== epoch,
      this.server.reachabilityChanged,
      cancellation,
    );
    if (this.abortEpoch !== epoch) throw new HostError("EIO", syscall, path);
    this.checkFresh(syscall, path);
  }

  flush(cancellation: Cancellation): Promise<void> {
    return waitUntil(() => this.server.reachable, this.server.reachabilityChanged, cancellation);
  }

  abortPending(): void {
    this.abortEpoch++;
    // Wakes this client's waiters (and harmlessly other clients' of the same server, which re-check).
    this.server.reachabilityChanged.notify();
  }

  private checkFresh(syscall: string, path: string): void {
    if (this.nfsExport.generation !== this.generationAtMount) throw new HostError("ESTALE", syscall, path);
  }
}

function lookupSubPath(fs: SimFilesystem, subPath: string): number | undefined {
  let ino: number | undefined = fs.rootIno;
  for (const part of subPath.split("/").filter((component) => component !== "")) {
    const inode = fs.inode(ino);
    if (inode.type !== "directory") return undefined;
    ino = fs.lookup(ino, part);
    if (ino === undefined) return undefined;
  }
  return ino;
}

function retryMs(options: readonly string[]): number {
  const minutes = Number(optionValue(options, "retry"));
  return Number.isFinite(minutes) && minutes >= 0 && optionValue(options, "retry") !== undefined
    ? minutes * nfsRetryOptionUnitMs
    : nfsForegroundMountRetryDefaultMs;
}

function nfsVersionOf(options: readonly string[]): string {
  return optionValue(options, "vers") ?? optionValue(options, "nfsvers") ?? nfsDefaultVersion;
}

function nfsSuperOptions(context: CommandContext, request: MountRequest, server: NfsServer, version: string): string[] {
  const options = filesystemOptionsOf(request);
  return [
    request.readOnly ? "ro" : "rw",
    `vers=${version}`,
    "rsize=1048576",
    "wsize=1048576",
    "namlen=255",
    options.includes("soft") ? "soft" : "hard",
    "proto=tcp",
    "timeo=600",
    "retrans=2",
    "sec=sys",
    `clientaddr=${context.kernel.options.address}`,
    "local_lock=none",
    `addr=${server.address}`,
  ];
}

/** `mount.nfs server:/export /mnt [-o options]`, run directly rather than through mount(8). */
export const mountNfsHelperCommand: CommandHandler = async (context, args) => {
  const parsed = parseMountArgs(args);
  if (!parsed.ok || parsed.request.source === undefined) {
    return failed(mountUsageExitStatus, "usage: mount.nfs remotetarget dir [-rvVwfnsh] [-o nfsoptions]\n");
  }
  try {
    return await mountWithHelper(context, parsed.request, parsed.request.source);
  } catch (error) {
    if (context.cancellation.cancelled) throw error;
    return failed(mountFailureExitStatus, `mount.nfs: ${strerror(errnoOf(error))}\n`);
  }
};
