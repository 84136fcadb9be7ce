/**
 * hostPath's `type` check (Kubernetes' hostpath checkType): validate, and for the *OrCreate types
 * create, what the pod expects at the node path before any container sees it. The messages are
 * Kubernetes', since they surface as `MountVolume.SetUp failed for volume "<name>" : <message>`.
 */
import { type FileType, type Host, isHostError } from "../../../host/host.ts";

/** `DirectoryOrCreate` directories are created with 0755 (owned by the kubelet). */
const hostPathDirectoryOrCreateMode = 0o755;
/** `FileOrCreate` files are created empty with 0644. */
const hostPathFileOrCreateMode = 0o644;

/** How each check words a mismatch: `hostPath type check failed: <path> is not <what>`. */
const expectation: Record<"directory" | "file" | "socket" | "charDevice" | "blockDevice", string> = {
  directory: "a directory",
  file: "a file",
  socket: "a socket file",
  charDevice: "a character device",
  blockDevice: "a block device",
};

async function fileTypeOrUndefined(host: Host, path: string): Promise<FileType | undefined> {
  try {
    return (await host.stat(path)).type;
  } catch (err) {
    if (isHostError(err, "ENOENT")) return undefined;
    throw err;
  }
}

function mismatch(path: string, wanted: keyof typeof expectation): Error {
  return new Error(`hostPath type check failed: ${path} is not ${expectation[wanted]}`);
}

/** Fails unless `path` (symlinks followed) is of type `wanted`; a device or socket must exist to be checked. */
async function requireType(host: Host, path: string, wanted: keyof typeof expectation): Promise<void> {
  if (wanted === "directory" || wanted === "file") {
    if ((await fileTypeOrUndefined(host, path)) !== wanted) throw mismatch(path, wanted);
    return;
  }
  // Kubernetes stats devices and sockets directly, so a missing one reports the stat error.
  if ((await host.stat(path)).type !== wanted) throw mismatch(path, wanted);
}

async function createDirectoryIfMissing(host: Host, path: string): Promise<void> {
  if ((await fileTypeOrUndefined(host, path)) === undefined) {
    await host.mkdir(path, hostPathDirectoryOrCreateMode, { recursive: true });
    return;
  }
  await requireType(host, path, "directory");
}

/** The parent must exist (Kubernetes opens with O_CREATE only); an existing file is never truncated. */
async function createFileIfMissing(host: Host, path: string): Promise<void> {
  if ((await fileTypeOrUndefined(host, path)) === undefined) {
    await host.writeFile(path, new Uint8Array(0), hostPathFileOrCreateMode);
    return;
  }
  await requireType(host, path, "file");
}

export async function checkHostPathType(host: Host, path: string, type: string): Promise<void> {
  switch (type) {
    case "":
      return;
    case "DirectoryOrCreate":
      return createDirectoryIfMissing(host, path);
    case "Directory":
      return requireType(host, path, "directory");
    case "FileOrCreate":
      return createFileIfMissing(host, path);
    case "File":
      return requireType(host, path, "file");
    case "Socket":
      return requireType(host, path, "socket");
    case "CharDevice":
      return requireType(host, path, "charDevice");
    case "BlockDevice":
      return requireType(host, path, "blockDevice");
    default:
      throw new Error(`${type} is an invalid volume type`);
  }
}
