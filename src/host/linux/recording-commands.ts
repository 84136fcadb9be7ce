/**
 * Test support: a directory of wrapper scripts that stand in front of real binaries on PATH. Each
 * wrapper appends its command line to a log, then runs the real binary — or does what a test needs
 * a real node to do (a systemd-run that works without systemd, a umount that hangs like one on a
 * dead NFS server, an fsck that finds uncorrectable errors).
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { findCommand } from "./command-path.ts";
import { defaultCommandSearchPath } from "./constants.ts";

/** What a wrapper does after logging its arguments. */
type WrapperBehaviour =
  /** Runs the real binary with the same arguments. */
  | { kind: "passThrough" }
  /** Plays systemd-run: the probe succeeds, a scope prints its unit line and runs the command after `--`. */
  | { kind: "systemdRun" }
  /** Hangs (until killed) unless called with `-f`, which runs the real binary. */
  | { kind: "hangUnlessForced" }
  /** Exits with this status without doing anything. */
  | { kind: "exit"; status: number };

export class RecordingCommands {
  readonly binDir: string;
  private readonly logFile: string;

  constructor(binDir: string) {
    this.binDir = binDir;
    this.logFile = join(binDir, "calls.log");
  }

  /** PATH with the wrappers first and the real binaries after. */
  get searchPath(): string {
    return `${this.binDir}:${process.env.PATH ?? defaultCommandSearchPath}`;
  }

  async wrap(name: string, behaviour: WrapperBehaviour = { kind: "passThrough" }): Promise<void> {
    const realPath = (await findCommand(name, process.env.PATH ?? defaultCommandSearchPath)) ?? `/nonexistent/${name}`;
    const log = `printf '%s\\n' "${name} $*" >> '${this.logFile}'`;
    await writeFile(join(this.binDir, name), `#!/bin/sh\n${log}\n${scriptBody(behaviour, realPath)}\n`, {
      mode: 0o755,
    });
  }

  /** Every wrapped call so far, one `name args...` line each. */
  async calls(): Promise<string[]> {
    try {
      return (await readFile(this.logFile, "utf8")).split("\n").filter((line) => line !== "");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
  }

  async clearCalls(): Promise<void> {
    await writeFile(this.logFile, "");
  }
}

function scriptBody(behaviour: WrapperBehaviour, realPath: string): string {
  switch (behaviour.kind) {
    case "passThrough":
      return `exec '${realPath}' "$@"`;
    case "systemdRun":
      return [
        `if [ "$*" = "--description=Kubernetes systemd probe --scope true" ]; then exit 0; fi`,
        `while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do shift; done`,
        "shift",
        "echo 'Running scope as unit run-38284.scope.'",
        'exec "$@"',
      ].join("\n");
    case "hangUnlessForced":
      return `if [ "$1" = "-f" ]; then exec '${realPath}' "$@"; fi\nexec sleep 600`;
    case "exit":
      return `exit ${behaviour.status}`;
  }
}
