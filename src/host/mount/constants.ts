/**
 * Every number and fixed word of the mount layer, in one place. Values follow kubernetes/mount-utils
 * (spec §7 and §9); each name carries its unit.
 */

/** mount-utils reads the mount table until two consecutive reads agree, at most this many times (maxListTries). */
export const mountInfoConsistentReadAttempts = 10;

/** The mount(8) binary mount-utils runs (defaultMountCommand). */
export const mountCommand = "mount";
/** The umount(8) binary. */
export const umountCommand = "umount";
/** The binary that puts a mount into a transient systemd scope. */
export const systemdRunCommand = "systemd-run";
/** The probe's description, run once per Mounter: `systemd-run --description=... --scope true`. */
export const systemdProbeDescription = "Kubernetes systemd probe";
/** Prefix of the scope description every scoped mount carries, followed by the target path. */
export const systemdTransientMountDescriptionPrefix = "Kubernetes transient mount for ";

/** A shell's exit status for a command that is not on PATH; a Host reports a missing binary with it. */
export const commandNotFoundExitStatus = 127;

/** Text umount(8) prints for a path that is not mounted; its presence enables the safe "not mounted" behaviour. */
export const umountNotMountedText = "not mounted";
/** Name of the scratch directory the safe "not mounted" probe creates and removes (as mount-utils' temp dir). */
export const safeNotMountedProbeDirName = "kubelet-detect-safe-umount";

/** What masks a sensitive mount option in logs and error texts. */
export const maskedOptionText = "<masked>";

/** The filesystem SafeFormatAndMount creates when the caller names none. */
export const defaultFilesystemType = "ext4";
/** blkid(8) exits with this status when it finds no filesystem or partition table. */
export const blkidNothingFoundExitStatus = 2;
/** fsck(8) exit status: errors were found and corrected. */
export const fsckErrorsCorrectedExitStatus = 1;
/** fsck(8) exit status: errors were found and left uncorrected. */
export const fsckErrorsUncorrectedExitStatus = 4;
/** The filesystem type SafeFormatAndMount reports for a disk with a partition table, so it is never formatted. */
export const partitionedDiskFormat = "unknown data, probably partitions";

/** Path resolution gives up after following this many symbolic links (Go's filepath.EvalSymlinks limit). */
export const maxSymlinkFollowsCount = 255;
