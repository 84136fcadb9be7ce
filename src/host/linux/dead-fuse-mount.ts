/**
 * Test support: a real FUSE mount whose daemon is gone — the "transport endpoint is not connected"
 * state of spec §8.3. /dev/fuse is opened, handed to mount(8) as `fd=3`, and closed without ever
 * serving a request: the kernel aborts the connection and every access to the mount point fails
 * with ENOTCONN while the mount stays in the table.
 */
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";

const fuseDevicePath = "/dev/fuse";
/** The fd number the FUSE device gets in mount(8): right after stdin, stdout, stderr. */
const fuseFdInMount = 3;
/** rootmode=40000: the mount root is a directory (S_IFDIR, octal). */
const fuseMountOptions = `fd=${fuseFdInMount},rootmode=40000,user_id=0,group_id=0`;

export function whyDeadFuseCannotBeMounted(): string | undefined {
  return existsSync(fuseDevicePath) ? undefined : `${fuseDevicePath} is missing (no FUSE in this kernel or container)`;
}

/** Mounts a FUSE filesystem named `source` at `target` and lets its (never started) daemon die. */
export function mountDeadFuse(source: string, target: string): void {
  const fuseFd = openSync(fuseDevicePath, "r+");
  try {
    // -i: mount(2) directly. Where FUSE userland is installed, mount(8) would otherwise hand
    // `-t fuse` to /sbin/mount.fuse, which tries to run `source` as the daemon and fails.
    const result = spawnSync("mount", ["-i", "-t", "fuse", "-o", fuseMountOptions, source, target], {
      stdio: ["ignore", "pipe", "pipe", fuseFd],
      encoding: "utf8",
    });
    if (result.status !== 0) throw new Error(`mounting a FUSE test filesystem failed: ${result.stderr}`);
  } finally {
    closeSync(fuseFd);
  }
}
