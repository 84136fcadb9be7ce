/**
 * mount(8) on the simulated node: tmpfs/ramfs/hugetlbfs, bind and recursive bind mounts, remounts,
 * block filesystems (ext2/3/4, xfs, btrfs) from devices or auto-created loop devices, NFS through the
 * mount.nfs helper, and FUSE types through mount.fuse. Failures print util-linux's words for the
 * node's util-linux version and exit 32, as mount-utils expects.
 */
import { posix } from "node:path";
import type { CommandResult } from "../../host.ts";
import { SimFilesystem } from "../filesystem.ts";
import type { MountEntry } from "../mount-table.ts";
import { sharedOptionList } from "../option-lists.ts";
import type { Location } from "../path-walk.ts";
import { mountFailureExitStatus, mountUsageExitStatus, tmpfsDefaultSizeFraction } from "../sim-constants.ts";
import { type CommandContext, type CommandHandler, failed, succeeded } from "./command-context.ts";
import { errnoOf, strerror } from "./errno-text.ts";
import { mountFuseType } from "./fuse.ts";
import { filesystemOptionsOf, type MountRequest, mountOptionsFor, optionValue, parseMountArgs } from "./mount-args.ts";
import { blockFilesystemTypes, detectBlockFsType, mountBlockFilesystem } from "./mount-block.ts";
import { mountNfs, nfsFsTypes } from "./mount-nfs.ts";
import { checkTarget } from "./mount-target.ts";
import {
  mountPointMissingText,
  mountTargetErrorText,
  mountUsageText,
  remountNotMountedText,
  specialDeviceMissingText,
  undetectedFsTypeText,
  unknownFsTypeText,
  wrongFsTypeText,
} from "./util-linux-messages.ts";

const memoryFsTypes = new Set(["tmpfs", "ramfs", "hugetlbfs"]);
/** tmpfs's root directory mode when no mode= is given (sticky, world-writable). */
const tmpfsDefaultRootMode = 0o1777;

export const mountCommand: CommandHandler = async (context, args) => {
  const parsed = parseMountArgs(args);
  if (!parsed.ok) return failed(mountUsageExitStatus, mountUsageText());
  const request = parsed.request;
  try {
    if (request.remount) return await remount(context, request);
    if (request.bind) return await bindMount(context, request);
    return await mountFilesystem(context, request);
  } catch (error) {
    // The mount(2) call itself failed (a directory onto a file, a mount point that vanished).
    if (context.cancellation.cancelled) throw error;
    const text = mountTargetErrorText(context.kernel.options.utilLinux, request.target, strerror(errnoOf(error)));
    return failed(mountFailureExitStatus, text);
  }
};

async function mountFilesystem(context: CommandContext, request: MountRequest): Promise<CommandResult> {
  const version = context.kernel.options.utilLinux;
  const fsType = request.fsType ?? (await detectFsType(context, request));
  if (fsType === undefined) {
    return failed(mountFailureExitStatus, undetectedFsTypeText(version, request.target, request.source ?? "none"));
  }
  if (nfsFsTypes.has(fsType)) return mountNfs(context, request, fsType);
  const targetProblem = await checkTarget(context, request.target);
  if (targetProblem !== undefined) return targetProblem;
  if (memoryFsTypes.has(fsType)) return mountMemoryFilesystem(context, request, fsType);
  if (fsType.startsWith("fuse.") || fsType === "fuse") return mountFuseType(context, request, fsType);
  if (blockFilesystemTypes.has(fsType)) return mountBlockFilesystem(context, request, fsType);
  return failed(mountFailureExitStatus, unknownFsTypeText(version, request.target, fsType));
}

async function detectFsType(context: CommandContext, request: MountRequest): Promise<string | undefined> {
  const source = request.source;
  if (source === undefined) return undefined;
  if (/^[^/][^:]*:\//.test(source)) return "nfs";
  return detectBlockFsType(context, source);
}

async function mountMemoryFilesystem(
  context: CommandContext,
  request: MountRequest,
  fsType: string,
): Promise<CommandResult> {
  const version = context.kernel.options.utilLinux;
  const filesystemOptions = filesystemOptionsOf(request);
  const memoryBytes = context.kernel.options.memoryBytes;
  const sizeBytes = parseTmpfsSize(optionValue(filesystemOptions, "size"), memoryBytes);
  const rootMode = parseOctal(optionValue(filesystemOptions, "mode")) ?? tmpfsDefaultRootMode;
  if (sizeBytes === undefined || Number.isNaN(rootMode)) {
    return failed(mountFailureExitStatus, wrongFsTypeText(version, request.target, request.source ?? fsType, false));
  }
  const fs = new SimFilesystem({ sizeLimitBytes: sizeBytes, rootMode });
  const superblock = context.kernel.anonymousSuperblock({
    fs,
    fsType,
    source: request.source ?? fsType,
    superOptions: [request.readOnly ? "ro" : "rw", ...filesystemOptions, ...(fsType === "tmpfs" ? ["inode64"] : [])],
  });
  await context.kernel.mount(
    request.target,
    { superblock, rootIno: fs.rootIno, rootPath: "/", options: mountOptionsFor(request) },
    context.cancellation,
  );
  return succeeded();
}

/** `mount --bind src dst` (and `-o bind,ro`, which util-linux turns into a bind plus a read-only remount). */
async function bindMount(context: CommandContext, request: MountRequest): Promise<CommandResult> {
  const version = context.kernel.options.utilLinux;
  const source = request.source;
  if (source === undefined) return failed(mountUsageExitStatus, mountUsageText());
  let sourceLocation: Location;
  try {
    sourceLocation = await context.state.walker.walk(source, "mount", context.cancellation, { followLast: true });
  } catch (error) {
    if (context.cancellation.cancelled) throw error;
    const code = errnoOf(error);
    if (code === "ENOENT")
      return failed(mountFailureExitStatus, specialDeviceMissingText(version, request.target, source));
    return failed(mountFailureExitStatus, mountTargetErrorText(version, request.target, strerror(code)));
  }
  const targetProblem = await checkTarget(context, request.target);
  if (targetProblem !== undefined) return targetProblem;
  const sourceMount = sourceLocation.mount;
  const inherited = sourceMount.options.slice(1);
  const entry = await attachBind(context, request.target, sourceLocation, [
    request.readOnly ? "ro" : (sourceMount.options[0] ?? "rw"),
    ...inherited,
  ]);
  if (request.recursiveBind) await cloneSubmounts(context, sourceLocation.path, entry);
  return succeeded();
}

async function attachBind(
  context: CommandContext,
  target: string,
  source: Location,
  options: string[],
): Promise<MountEntry> {
  const rootPath = posix.join(source.mount.rootPath, posix.relative(source.mount.mountPoint, source.path)) || "/";
  return context.kernel.mount(
    target,
    { superblock: source.mount.superblock, rootIno: source.ino, rootPath, options },
    context.cancellation,
  );
}

/** `--rbind`: every mount below the source appears at the same place below the target. */
async function cloneSubmounts(context: CommandContext, sourcePath: string, bindEntry: MountEntry): Promise<void> {
  const prefix = sourcePath === "/" ? "/" : `${sourcePath}/`;
  const submounts = context.state.mounts
    .list()
    .filter(
      (entry) =>
        entry !== bindEntry &&
        entry.mountPoint.startsWith(prefix) &&
        !entry.mountPoint.startsWith(`${bindEntry.mountPoint}/`),
    );
  for (const submount of submounts) {
    const target = posix.join(bindEntry.mountPoint, posix.relative(sourcePath, submount.mountPoint));
    await context.kernel.mount(
      target,
      {
        superblock: submount.superblock,
        rootIno: submount.rootIno,
        rootPath: submount.rootPath,
        options: [...submount.options],
      },
      context.cancellation,
    );
  }
}

/** `mount -o remount,ro target` (with or without bind): changes the mount's flags in place. */
async function remount(context: CommandContext, request: MountRequest): Promise<CommandResult> {
  const version = context.kernel.options.utilLinux;
  let entry: MountEntry | undefined;
  try {
    entry = await context.kernel.mountAt(request.target, context.cancellation);
  } catch (error) {
    if (context.cancellation.cancelled) throw error;
    const code = errnoOf(error);
    if (code === "ENOENT") return failed(mountFailureExitStatus, mountPointMissingText(version, request.target));
    return failed(mountFailureExitStatus, mountTargetErrorText(version, request.target, strerror(code)));
  }
  if (entry === undefined) return failed(mountFailureExitStatus, remountNotMountedText(version, request.target));
  const flags = mountOptionsFor(request).slice(1);
  const kept = entry.options.slice(1).filter((option) => !flags.includes(option));
  entry.options = sharedOptionList([
    request.readOnly ? "ro" : "rw",
    ...kept,
    ...flags.filter((flag) => flag !== "relatime" || !kept.includes(flag)),
  ]);
  return succeeded();
}

const sizeSuffixBytes: Record<string, number> = { k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** tmpfs `size=`: bytes, with k/m/g/t suffixes or a % of memory; undefined when malformed. */
function parseTmpfsSize(value: string | undefined, memoryBytes: number): number | undefined {
  if (value === undefined) return Math.floor(memoryBytes * tmpfsDefaultSizeFraction);
  const match = /^(\d+)([kmgt%]?)$/i.exec(value);
  if (match === null) return undefined;
  const amount = Number(match[1]);
  const suffix = (match[2] ?? "").toLowerCase();
  if (suffix === "%") return Math.floor((memoryBytes * amount) / 100);
  return amount * (sizeSuffixBytes[suffix] ?? 1);
}

function parseOctal(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  return /^[0-7]+$/.test(value) ? Number.parseInt(value, 8) : Number.NaN;
}
