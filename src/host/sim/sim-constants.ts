/**
 * Every number of the simulated node and its outside world, in one place, each with its unit in
 * its name and the real system it imitates.
 */

/** The kernel stops following symbolic links after this many on one path (MAXSYMLINKS since Linux 4.2). */
export const maxSymlinkFollowsCount = 40;

/** mount(8) exit status for a failed mount or umount (util-linux MNT_EX_FAIL). */
export const mountFailureExitStatus = 32;
/** mount(8) exit status for bad usage (MNT_EX_USAGE). */
export const mountUsageExitStatus = 1;
/**
 * Exit statuses the mount layer interprets (command not found, blkid found nothing, fsck corrected /
 * left errors) live in ../mount/constants.ts; the simulated tools return those same values.
 */
/** fsck(8): no errors. */
export const fsckCleanExitStatus = 0;
/** mkfs and most other tools: generic failure. */
export const genericFailureExitStatus = 1;

/**
 * mount.nfs retries a foreground mount for `retry=` minutes, 2 by default (nfs(5)), then fails with
 * "Connection timed out". An unreachable server therefore makes `mount` hang this long.
 */
export const nfsForegroundMountRetryDefaultMs = 2 * 60 * 1000;
const millisecondsPerMinute = 60 * 1000;
export const nfsRetryOptionUnitMs = millisecondsPerMinute;

/**
 * Ceph forgets a client's watch on an image this long after the client stops pinging
 * (osd_client_watch_timeout, 30 s): a node that dies keeps its watcher that long unless fenced.
 */
export const rbdWatcherTimeoutDefaultMs = 30 * 1000;

/** Cloud disk attach and detach latencies when a disk has no injected latency. */
export const diskAttachLatencyDefaultMs = 1000;
export const diskDetachLatencyDefaultMs = 1000;

/** First pid handed out on a freshly booted node (lower ones belong to the boot itself). */
export const firstDaemonPid = 4000;
/** First mount id after the boot mounts, in the range a real node shows. */
export const firstMountId = 21;
/** First transient scope number: `Running scope as unit run-<n>.scope.` (systemd numbers them from a counter). */
export const firstScopeUnitNumberMin = 1000;
export const firstScopeUnitNumberSpan = 60000;
/** First rbd client id a node gets (`client.<id>` in `rbd status`). */
export const firstRbdClientId = 14100;

/** Memory of a simulated node; tmpfs without size= gets half of it, as the kernel does. */
export const nodeMemoryDefaultBytes = 8 * 1024 * 1024 * 1024;
export const tmpfsDefaultSizeFraction = 0.5;
/** Size statfs reports for a simulated node's root disk (its files are kept in memory, without a limit). */
export const nodeRootDiskBytes = 100 * 1024 * 1024 * 1024;
/**
 * Bytes of a simulated filesystem per inode it can hold: mke2fs's default inode_ratio, so statfs
 * of a 1 GiB volume reports 65,536 inodes, as a fresh ext4 of that size does.
 */
export const filesystemBytesPerInode = 16_384;

/** Major device numbers (Documentation/admin-guide/devices.txt; rbd's is dynamic, 252 is typical). */
export const scsiDiskMajor = 8;
export const scsiDiskMinorsPerDisk = 16;
export const loopMajor = 7;
export const rbdMajor = 252;
/** Anonymous (non-block) filesystems: tmpfs, nfs, fuse, devtmpfs get 0:<n>. */
export const anonymousMajor = 0;
export const firstAnonymousMinor = 40;

/** Default permission bits. */
export const defaultFileMode = 0o644;
export const defaultDirectoryMode = 0o755;
export const symlinkMode = 0o777;
/** A Unix socket bound under the usual umask 022 (Go servers do not chmod their sockets). */
export const socketDefaultMode = 0o755;
/** A loop device over an empty file still has one sector. */
export const minimumLoopSizeBytes = 512;
/** st_size of a directory on ext4 and most filesystems. */
export const directorySizeBytes = 4096;
export const deviceNodeMode = 0o660;
