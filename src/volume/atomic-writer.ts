/**
 * Kubernetes' AtomicWriter: publishes a set of files (a Secret's or ConfigMap's keys) into a volume
 * directory so that a reader never sees half an update. The layout inside the target directory:
 *
 *   ..2026_01_01_00_00_00.1234567890/   the current payload, in a hidden timestamped directory
 *   ..data -> ..2026_01_01_00_00_00.1234567890
 *   <key>  -> ..data/<key>              one user-visible link per top-level name
 *
 * An update writes a new timestamped directory, points a temporary `..data_tmp` link at it and
 * renames that link over `..data` (rename(2) is atomic), then adds missing user-visible links and
 * removes stale ones and the old directory. A reader that resolves `..data` once sees either the
 * whole old payload or the whole new one. Identical content is not rewritten.
 */
import { posix } from "node:path";
import { type Host, isHostError } from "../host/host.ts";
import type { Clock } from "../runtime/clock.ts";
import { formatRfc3339 } from "../runtime/clock.ts";
import type { Rng } from "../runtime/rng.ts";
import { removeAllOneFilesystem } from "./util/remove-all.ts";
import type { VolumeLogger } from "./volume-host.ts";

/** One file of the payload: its bytes and its permission bits. */
export interface FileProjection {
  data: Uint8Array;
  mode: number;
}

/** Relative path (as in a Secret's `items[].path`) → file. */
export type Payload = ReadonlyMap<string, FileProjection>;

const dataDirName = "..data";
const newDataDirName = "..data_tmp";
const maxFileNameLength = 255;
const maxPathLength = 4096;
/** Timestamped directories are readable and traversable by the container's user, whatever the umask. */
const timestampDirMode = 0o755;
/** Nested directories inside a payload (Go's os.ModePerm under the usual 022 umask). */
const payloadSubdirMode = 0o755;
/** os.MkdirTemp gives up after this many name collisions. */
const maxTimestampDirAttempts = 10_000;

interface AtomicWriterOptions {
  clock: Clock;
  rng: Rng;
  logger?: VolumeLogger;
  /** Names the volume in log lines: `pod default/web volume config`. */
  logContext?: string;
}

/**
 * Why `path` cannot be a payload key, or undefined when it can: keys are relative, contain no `..`
 * element, do not start with `..` (reserved for the writer's own entries) and fit Linux name limits.
 */
export function payloadPathProblem(path: string): string | undefined {
  if (path === "") return `invalid path: must not be empty: "${path}"`;
  if (posix.isAbsolute(path)) return `invalid path: must be relative path: ${path}`;
  if (path.length > maxPathLength) return `invalid path: must be less than or equal to ${maxPathLength} characters`;
  const items = path.split("/");
  for (const item of items) {
    if (item === "..") return `invalid path: must not contain '..': ${path}`;
    if (item.length > maxFileNameLength) {
      return `invalid path: filenames must be less than or equal to ${maxFileNameLength} characters`;
    }
  }
  const first = items[0] ?? "";
  if (first.startsWith("..") && first.length > 2) return `invalid path: must not start with '..': ${path}`;
  return undefined;
}

/** Go's filepath.Clean for a relative key: `a//b/./c/` → `a/b/c`. */
function cleanPath(path: string): string {
  const normalized = posix.normalize(path);
  return normalized.length > 1 && normalized.endsWith("/") ? normalized.slice(0, -1) : normalized;
}

function validatePayload(payload: Payload): Map<string, FileProjection> {
  const clean = new Map<string, FileProjection>();
  for (const [path, file] of payload) {
    const problem = payloadPathProblem(path);
    if (problem !== undefined) throw new Error(problem);
    clean.set(cleanPath(path), file);
  }
  return clean;
}

/** `..2026_01_01_00_00_00.`: Go's time format `..2006_01_02_15_04_05.` in UTC. */
export function timestampDirPrefix(epochMs: number): string {
  const [date = "", time = ""] = formatRfc3339(epochMs).replace("Z", "").split("T");
  return `..${date.replaceAll("-", "_")}_${time.replaceAll(":", "_")}.`;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

export class AtomicWriter {
  readonly targetDir: string;
  private readonly host: Host;
  private readonly clock: Clock;
  private readonly rng: Rng;
  private readonly logger: VolumeLogger | undefined;
  private readonly logContext: string;

  constructor(host: Host, targetDir: string, options: AtomicWriterOptions) {
    if (!posix.isAbsolute(targetDir)) throw new Error(`atomic writer: targetDir must be absolute, got "${targetDir}"`);
    this.host = host;
    this.targetDir = targetDir;
    this.clock = options.clock;
    this.rng = options.rng;
    this.logger = options.logger;
    this.logContext = options.logContext ?? targetDir;
  }

  /**
   * Makes the target directory show exactly `payload`. `setPerms` runs on the new timestamped
   * directory's name before it becomes visible (fsGroup ownership).
   */
  async write(payload: Payload, setPerms?: (timestampDirName: string) => Promise<void>): Promise<void> {
    const files = validatePayload(payload);
    const oldTimestampDir = await this.currentTimestampDir();
    const oldTimestampPath = posix.join(this.targetDir, oldTimestampDir);

    let pathsToRemove = new Set<string>();
    let shouldWrite = true;
    if (oldTimestampDir !== "") {
      pathsToRemove = await this.pathsToRemove(files, oldTimestampPath);
      shouldWrite = (await this.payloadDiffers(files, oldTimestampPath)) || pathsToRemove.size > 0;
    }

    if (shouldWrite) await this.publishNewTimestampDir(files, setPerms);
    else this.logger?.info(`${this.logContext}: no update required for target directory ${this.targetDir}`);

    await this.createUserVisibleLinks(files);
    await this.removeUserVisiblePaths(pathsToRemove);
    // Only an actual swap leaves an old directory behind; without one `..data` still points at it.
    if (shouldWrite && oldTimestampDir !== "") await removeAllOneFilesystem(this.host, oldTimestampPath);
  }

  /** The timestamped directory `..data` points at, or "" when there is none yet. */
  private async currentTimestampDir(): Promise<string> {
    try {
      return await this.host.readlink(posix.join(this.targetDir, dataDirName));
    } catch (err) {
      if (isHostError(err, "ENOENT")) return "";
      throw err;
    }
  }

  /** Writes the payload into a new timestamped directory and swaps `..data` to it. */
  private async publishNewTimestampDir(
    files: ReadonlyMap<string, FileProjection>,
    setPerms: ((timestampDirName: string) => Promise<void>) | undefined,
  ): Promise<void> {
    const timestampPath = await this.newTimestampDir();
    const timestampDirName = posix.basename(timestampPath);
    await this.writePayloadToDir(files, timestampPath);
    if (setPerms !== undefined) await setPerms(timestampDirName);

    const newDataPath = posix.join(this.targetDir, newDataDirName);
    const dataPath = posix.join(this.targetDir, dataDirName);
    try {
      await this.host.symlink(timestampDirName, newDataPath);
    } catch (err) {
      await removeAllOneFilesystem(this.host, timestampPath);
      throw err;
    }
    try {
      await this.host.rename(newDataPath, dataPath);
    } catch (err) {
      await this.removeIgnoringAbsent(newDataPath);
      await removeAllOneFilesystem(this.host, timestampPath);
      throw err;
    }
    this.logger?.info(`${this.logContext}: performed write of new data to ts data directory: ${timestampPath}`);
  }

  /** os.MkdirTemp(targetDir, "..<timestamp>."): a fresh name with a random decimal suffix. */
  private async newTimestampDir(): Promise<string> {
    const prefix = timestampDirPrefix(this.clock.now());
    for (let attempt = 0; attempt < maxTimestampDirAttempts; attempt++) {
      const path = posix.join(this.targetDir, `${prefix}${this.rng.nextUint32()}`);
      try {
        await this.host.mkdir(path, timestampDirMode);
        await this.host.chmod(path, timestampDirMode);
        return path;
      } catch (err) {
        if (!isHostError(err, "EEXIST")) throw err;
      }
    }
    throw new Error(`${this.logContext}: could not create a new timestamped directory in ${this.targetDir}`);
  }

  private async writePayloadToDir(files: ReadonlyMap<string, FileProjection>, dir: string): Promise<void> {
    for (const [relativePath, file] of files) {
      const fullPath = posix.join(dir, relativePath);
      await this.host.mkdir(posix.dirname(fullPath), payloadSubdirMode, { recursive: true });
      await this.host.writeFile(fullPath, file.data, file.mode);
      // The mode must hold whatever the umask was when the file was created.
      await this.host.chmod(fullPath, file.mode);
    }
  }

  /** True when some file is new or its bytes changed (modes alone do not trigger a write, as in Kubernetes). */
  private async payloadDiffers(files: ReadonlyMap<string, FileProjection>, oldTimestampPath: string): Promise<boolean> {
    for (const [relativePath, file] of files) {
      const path = posix.join(oldTimestampPath, relativePath);
      try {
        await this.host.lstat(path);
      } catch (err) {
        if (isHostError(err, "ENOENT")) return true;
        throw err;
      }
      if (!sameBytes(await this.host.readFile(path), file.data)) return true;
    }
    return false;
  }

  /** Every path in the old payload that is neither a new file nor a directory on the way to one. */
  private async pathsToRemove(
    files: ReadonlyMap<string, FileProjection>,
    oldTimestampPath: string,
  ): Promise<Set<string>> {
    const oldPaths = await this.walkRelative(oldTimestampPath);
    const kept = new Set<string>();
    for (const file of files.keys()) {
      for (let subPath = file; subPath !== "." && subPath !== ""; subPath = posix.dirname(subPath)) kept.add(subPath);
    }
    return new Set(oldPaths.filter((path) => !kept.has(path)));
  }

  /** Relative paths of everything below `root` (not following links); empty when `root` is gone. */
  private async walkRelative(root: string): Promise<string[]> {
    const found: string[] = [];
    const pending = [""];
    // Each directory is listed once; the tree is finite because links are not followed.
    while (pending.length > 0) {
      const relativeDir = pending.pop() as string;
      let names: string[];
      try {
        names = await this.host.readdir(posix.join(root, relativeDir));
      } catch (err) {
        if (isHostError(err, "ENOENT")) continue;
        throw err;
      }
      for (const name of names) {
        const relativePath = relativeDir === "" ? name : `${relativeDir}/${name}`;
        found.push(relativePath);
        const stat = await this.host.lstat(posix.join(root, relativePath));
        if (stat.type === "directory") pending.push(relativePath);
      }
    }
    return found;
  }

  /** `<top-level name> -> ..data/<top-level name>` for each payload entry, where missing. */
  private async createUserVisibleLinks(files: ReadonlyMap<string, FileProjection>): Promise<void> {
    const topLevelNames = new Set([...files.keys()].map((path) => path.split("/")[0] as string));
    for (const name of topLevelNames) {
      const visiblePath = posix.join(this.targetDir, name);
      try {
        await this.host.readlink(visiblePath);
      } catch (err) {
        if (!isHostError(err, "ENOENT")) continue;
        await this.host.symlink(posix.join(dataDirName, name), visiblePath);
      }
    }
  }

  /** Removes stale top-level user-visible links; deeper paths vanished with the old directory. */
  private async removeUserVisiblePaths(paths: ReadonlySet<string>): Promise<void> {
    let lastError: unknown;
    for (const path of paths) {
      if (path.includes("/")) continue;
      try {
        await this.removeIgnoringAbsent(posix.join(this.targetDir, path));
      } catch (err) {
        this.logger?.warning(`${this.logContext}: error pruning old user-visible path ${path}: ${String(err)}`);
        lastError = err;
      }
    }
    if (lastError !== undefined) throw lastError;
  }

  /** os.Remove: unlink a link or file, rmdir an (empty) directory; absent is fine. */
  private async removeIgnoringAbsent(path: string): Promise<void> {
    try {
      await this.host.unlink(path);
    } catch (err) {
      if (isHostError(err, "ENOENT")) return;
      if (!isHostError(err, "EISDIR") && !isHostError(err, "EPERM")) throw err;
      await this.host.rmdir(path);
    }
  }
}
