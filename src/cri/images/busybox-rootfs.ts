/**
 * A root filesystem made from the machine's static busybox (Debian's `busybox-static`): the
 * binary at /bin/busybox, one symlink per applet where busybox itself says it belongs, and the
 * directories and files a shell and common tools expect. This is what `busybox` (and the stand-ins
 * for the other images the examples name) run in, without any registry.
 */
import { execFile } from "node:child_process";
import { chmod, copyFile, mkdir, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { isStaticElf } from "./static-binary.ts";

const run = promisify(execFile);

/** Where a static busybox is looked for, in order. */
const staticBusyboxCandidates = ["/bin/busybox", "/usr/bin/busybox", "/usr/local/bin/busybox", "/sbin/busybox"];

export const missingStaticBusyboxAdvice =
  "a statically linked busybox is needed to build container images (Debian: apt-get install busybox-static)";

/** The first statically linked busybox on this machine, or undefined. */
export async function findStaticBusybox(): Promise<string | undefined> {
  for (const candidate of staticBusyboxCandidates) {
    try {
      if (await isStaticElf(candidate)) return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return undefined;
}

const rootfsDirs: readonly [string, number][] = [
  ["bin", 0o755],
  ["sbin", 0o755],
  ["usr/bin", 0o755],
  ["usr/sbin", 0o755],
  ["etc", 0o755],
  ["proc", 0o555],
  ["sys", 0o555],
  ["dev", 0o755],
  ["tmp", 0o1777],
  ["root", 0o700],
  ["home", 0o755],
  ["var/log", 0o755],
  ["var/tmp", 0o1777],
  ["run", 0o755],
];

const rootfsFiles: readonly [string, string][] = [
  ["etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n"],
  ["etc/group", "root:x:0:\nnogroup:x:65534:\n"],
  ["etc/hosts", "127.0.0.1\tlocalhost\n::1\tlocalhost\n"],
  ["etc/resolv.conf", ""],
];

/** Fills the empty directory `rootfs` from the static busybox at `busybox`. */
export async function buildBusyboxRootfs(busybox: string, rootfs: string): Promise<void> {
  for (const [dir, mode] of rootfsDirs) {
    await mkdir(join(rootfs, dir), { recursive: true });
    await chmod(join(rootfs, dir), mode);
  }
  for (const [file, text] of rootfsFiles) await writeFile(join(rootfs, file), text);
  await copyFile(busybox, join(rootfs, "bin/busybox"));
  await chmod(join(rootfs, "bin/busybox"), 0o755);
  const { stdout } = await run(busybox, ["--list-full"], { encoding: "utf8" });
  for (const applet of stdout.split("\n")) {
    if (applet === "" || applet === "bin/busybox" || applet.includes("..")) continue;
    await mkdir(dirname(join(rootfs, applet)), { recursive: true });
    await symlink("/bin/busybox", join(rootfs, applet));
  }
}
