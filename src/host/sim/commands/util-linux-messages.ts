/**
 * What mount(8) and umount(8) print, word for word, in the two util-linux generations a node meets:
 * 2.23 (CentOS 7, the text of seed 002 and of most old Kubernetes issues) and 2.38 (current
 * distributions: one line, target first, with a dmesg hint after failed mount system calls).
 */
import type { UtilLinuxVersion } from "../sim-kernel.ts";

const dmesgHint = "       dmesg(1) may have more information after failed mount system call.\n";
const syslogHint = "\n       In some cases useful info is found in syslog - try\n       dmesg | tail or so.\n";

/** The helper-missing / bad-superblock error. `networkFs` adds the mount.<type> helper advice. */
export function wrongFsTypeText(version: UtilLinuxVersion, target: string, source: string, networkFs: boolean): string {
  if (version === "2.23") {
    const helperAdvice = networkFs
      ? "       (for several filesystems (e.g. nfs, cifs) you might\n       need a /sbin/mount.<type> helper program)\n"
      : "";
    return (
      `mount: wrong fs type, bad option, bad superblock on ${source},\n` +
      `       missing codepage or helper program, or other error\n${helperAdvice}${syslogHint}`
    );
  }
  if (networkFs) {
    return (
      `mount: ${target}: bad option; for several filesystems (e.g. nfs, cifs) you might need a /sbin/mount.<type> helper program.\n` +
      dmesgHint
    );
  }
  return (
    `mount: ${target}: wrong fs type, bad option, bad superblock on ${source}, missing codepage or helper program, or other error.\n` +
    dmesgHint
  );
}

export function mountPointMissingText(version: UtilLinuxVersion, target: string): string {
  return version === "2.23"
    ? `mount: mount point ${target} does not exist\n`
    : `mount: ${target}: mount point does not exist.\n${dmesgHint}`;
}

export function specialDeviceMissingText(version: UtilLinuxVersion, target: string, source: string): string {
  return version === "2.23"
    ? `mount: special device ${source} does not exist\n`
    : `mount: ${target}: special device ${source} does not exist.\n${dmesgHint}`;
}

export function unknownFsTypeText(version: UtilLinuxVersion, target: string, fsType: string): string {
  return version === "2.23"
    ? `mount: unknown filesystem type '${fsType}'\n`
    : `mount: ${target}: unknown filesystem type '${fsType}'.\n${dmesgHint}`;
}

export function notBlockDeviceText(version: UtilLinuxVersion, target: string, source: string): string {
  return version === "2.23"
    ? `mount: ${source} is not a block device\n`
    : `mount: ${target}: ${source} is not a block device.\n${dmesgHint}`;
}

/** mount without -t on something blkid cannot identify. */
export function undetectedFsTypeText(version: UtilLinuxVersion, target: string, source: string): string {
  return version === "2.23"
    ? "mount: you must specify the filesystem type\n"
    : wrongFsTypeText(version, target, source, false);
}

export function cannotReadSuperblockText(version: UtilLinuxVersion, target: string, source: string): string {
  return version === "2.23"
    ? `mount: ${source}: can't read superblock\n`
    : `mount: ${target}: can't read superblock on ${source}.\n${dmesgHint}`;
}

export function remountNotMountedText(version: UtilLinuxVersion, target: string): string {
  return version === "2.23"
    ? `mount: ${target} not mounted or bad option\n${syslogHint}`
    : `mount: ${target}: mount point not mounted or bad option.\n${dmesgHint}`;
}

export function mountTargetErrorText(version: UtilLinuxVersion, target: string, reason: string): string {
  return version === "2.23" ? `mount: ${target}: ${reason}\n` : `mount: ${target}: ${reason}.\n${dmesgHint}`;
}

export function mountUsageText(): string {
  return "mount: bad usage\nTry 'mount --help' for more information.\n";
}

export function umountNotMountedText(version: UtilLinuxVersion, target: string): string {
  return version === "2.23" ? `umount: ${target}: not mounted\n` : `umount: ${target}: not mounted.\n`;
}

export function umountBusyText(version: UtilLinuxVersion, target: string): string {
  return version === "2.23"
    ? `umount: ${target}: target is busy.\n` +
        "        (In some cases useful info about processes that use\n" +
        "         the device is found by lsof(8) or fuser(1))\n"
    : `umount: ${target}: target is busy.\n`;
}

export function umountNoMountPointText(version: UtilLinuxVersion, target: string): string {
  return version === "2.23"
    ? `umount: ${target}: mount point not found\n`
    : `umount: ${target}: no mount point specified.\n`;
}

export function umountErrorText(version: UtilLinuxVersion, target: string, reason: string): string {
  return version === "2.23" ? `umount: ${target}: ${reason}\n` : `umount: ${target}: ${reason}.\n`;
}

export function umountUsageText(): string {
  return "umount: bad usage\nTry 'umount --help' for more information.\n";
}
