/**
 * Test support: what a real FUSE test needs from the machine — the kernel's /dev/fuse and the FUSE
 * program on PATH — and, when something is missing, the sentence that says what and how to get it.
 */
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

const fuseDevicePath = "/dev/fuse";

/** The Debian package that brings each FUSE program the tests run. */
const debianPackageOf: Readonly<Record<string, string>> = { bindfs: "bindfs", s3fs: "s3fs" };

/** Why `program` cannot serve a real FUSE mount here, or undefined when it can. */
export function whyRealFuseCannotRun(program: string): string | undefined {
  if (!existsSync(fuseDevicePath)) return `${fuseDevicePath} is missing (no FUSE in this kernel or container)`;
  if (!isOnPath(program)) {
    return `${program} is not installed (Debian: apt-get install ${debianPackageOf[program] ?? program})`;
  }
  return undefined;
}

function isOnPath(program: string): boolean {
  return (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => isAbsolute(dir))
    .some((dir) => isExecutableFile(join(dir, program)));
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch (error) {
    // Not there or not executable: either way not this one.
    if (!(error instanceof Error)) throw error;
    return false;
  }
}
