/**
 * The FUSE program that serves fuse.csi.kvol.io's volumes, and where a volume's data lives for it:
 *
 * - a directory program (`bindfs` on a real node, `kvolfs` in the simulator) serves the node
 *   directory `<stateDir>/<volumeId>` that the controller made; the mount table names that
 *   directory as the mount's source;
 * - `s3fs` serves the prefix `<volumeId>/` of one bucket of an S3-compatible object store (the
 *   driver of seed 003 served buckets this way). The prefix needs no creating: s3fs lists an absent
 *   one as an empty directory, and the first write makes it. `-o fsname=<bucket>:/<volumeId>` makes
 *   the mount table name the volume, so a mount can be told apart from another volume's.
 *
 * Every program runs in the foreground (`-f`), so the Host tracks the daemon itself rather than a
 * parent that forks and exits.
 */
import { volumeDataPath } from "../common/volume-storage.ts";

export interface FuseProgram {
  /** The binary (`bindfs`, `s3fs`, `kvolfs`). */
  readonly command: string;
  /** The command line serving volume `volumeId` on `mountPoint`, in the foreground. */
  args(volumeId: string, mountPoint: string): string[];
  /** What the mount table shows as the source of that mount. */
  mountSource(volumeId: string): string;
  /** The node directory that holds the volume's data, or undefined where it lives elsewhere (a bucket). */
  localDataPath(volumeId: string): string | undefined;
}

/** A program that serves a directory of the node: `<program> -f <stateDir>/<volumeId> <mountPoint>`. */
export function directoryFuseProgram(command: string, stateDir: string): FuseProgram {
  return {
    command,
    args: (volumeId, mountPoint) => ["-f", volumeDataPath(stateDir, volumeId), mountPoint],
    mountSource: (volumeId) => volumeDataPath(stateDir, volumeId),
    localDataPath: (volumeId) => volumeDataPath(stateDir, volumeId),
  };
}

/** Where s3fs finds the object store. */
export interface S3fsOptions {
  /** The endpoint, `http://127.0.0.1:9000` (path-style requests, as S3-compatible servers expect). */
  url: string;
  /** The bucket whose prefixes are the volumes. */
  bucket: string;
  /** A file `ACCESS_KEY:SECRET_KEY`, mode 0600 (s3fs refuses a file others can read). */
  passwdFile: string;
}

export const s3fsCommand = "s3fs";

/** s3fs serving `<bucket>:/<volumeId>`. */
export function s3fsProgram(options: S3fsOptions): FuseProgram {
  const source = (volumeId: string) => `${options.bucket}:/${volumeId}`;
  return {
    command: s3fsCommand,
    args: (volumeId, mountPoint) => [
      source(volumeId),
      mountPoint,
      "-f",
      "-o",
      `url=${options.url},use_path_request_style,passwd_file=${options.passwdFile},fsname=${source(volumeId)}`,
    ],
    mountSource: source,
    localDataPath: () => undefined,
  };
}
