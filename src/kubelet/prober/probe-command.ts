/**
 * Runs an exec probe's command inside a simulated container. There is no image, so only the
 * commands probes use to check a volume are modelled — `ls`, `cat`, `stat`, `test -e|-f|-d`, `df`,
 * `grep [-q] PATTERN FILE…` (the pattern taken as a fixed string), `true`, `false`, and one of them
 * inside `sh -c` — and they act on the node path behind the
 * container's volume mount, through the container's own view of it (container-mounts.ts). Their
 * output is GNU coreutils' wording (`ls: cannot access '/data': Transport endpoint is not connected`).
 *
 * Paths outside every volume mount are in the image, which is not modelled: they are taken to
 * exist. A program the model does not know is taken to succeed, since the simulation cannot run it.
 */
import type { Host } from "../../host/host.ts";
import { ERRNO_TEXT, isHostError } from "../../host/host.ts";
import {
  type ContainerMount,
  checkContainerStillSeesMount,
  resolveContainerPath,
} from "../container/container-mounts.ts";

export interface ProbeCommandResult {
  exitCode: number;
  /** stdout and stderr combined, as the prober reports them. */
  output: string;
}

/** What a path check found: the file's kind, or the C library's error text. */
type PathLookup = { ok: true; isDirectory: boolean; hostPath?: string } | { ok: false; error: string };

const lsTroubleExitCode = 2;
const grepTroubleExitCode = 2;
const grepUsageText = "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n";
const shells = new Set(["sh", "/bin/sh", "bash", "/bin/bash"]);

function cLibraryText(error: unknown): string {
  if (!isHostError(error)) throw error;
  const text = ERRNO_TEXT[error.code];
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

function programName(program: string): string {
  return program.slice(program.lastIndexOf("/") + 1);
}

function ok(output = ""): ProbeCommandResult {
  return { exitCode: 0, output };
}

function failed(exitCode: number, output: string): ProbeCommandResult {
  return { exitCode, output };
}

export class ProbeCommandRunner {
  constructor(
    private readonly host: Host,
    private readonly mounts: readonly ContainerMount[],
  ) {}

  async run(command: readonly string[]): Promise<ProbeCommandResult> {
    const [program, ...args] = command;
    if (program === undefined) return failed(1, "no command given\n");
    if (shells.has(program) && args[0] === "-c" && args[1] !== undefined) {
      return this.run(args[1].trim().split(/\s+/).filter(Boolean));
    }
    const operands = args.filter((arg) => !arg.startsWith("-"));
    switch (programName(program)) {
      case "true":
        return ok();
      case "false":
        return failed(1, "");
      case "ls":
        return this.ls(operands.length === 0 ? ["."] : operands);
      case "cat":
        return this.cat(operands);
      case "stat":
        return this.statCommand(operands);
      case "df":
        return this.df(operands);
      case "grep":
        return this.grep(operands, args.includes("-q"));
      case "test":
      case "[":
        return this.test(args.filter((arg) => arg !== "]"));
      default:
        return ok();
    }
  }

  private async lookup(containerPath: string): Promise<PathLookup> {
    const resolved = resolveContainerPath(this.mounts, containerPath);
    if (resolved.where === "image") return { ok: true, isDirectory: false };
    try {
      await checkContainerStillSeesMount(this.host, resolved);
      const stat = await this.host.stat(resolved.hostPath);
      return { ok: true, isDirectory: stat.type === "directory", hostPath: resolved.hostPath };
    } catch (error) {
      return { ok: false, error: cLibraryText(error) };
    }
  }

  private async ls(paths: readonly string[]): Promise<ProbeCommandResult> {
    let output = "";
    let exitCode = 0;
    for (const path of paths) {
      const found = await this.lookup(path);
      if (!found.ok) {
        output += `ls: cannot access '${path}': ${found.error}\n`;
        exitCode = lsTroubleExitCode;
        continue;
      }
      if (!found.isDirectory || found.hostPath === undefined) {
        output += `${path}\n`;
        continue;
      }
      try {
        const entries = await this.host.readdir(found.hostPath);
        output += entries
          .filter((entry) => !entry.startsWith("."))
          .map((entry) => `${entry}\n`)
          .join("");
      } catch (error) {
        output += `ls: cannot open directory '${path}': ${cLibraryText(error)}\n`;
        exitCode = lsTroubleExitCode;
      }
    }
    return { exitCode, output };
  }

  private async cat(paths: readonly string[]): Promise<ProbeCommandResult> {
    let output = "";
    let exitCode = 0;
    for (const path of paths) {
      const found = await this.lookup(path);
      if (!found.ok) {
        output += `cat: ${path}: ${found.error}\n`;
        exitCode = 1;
      } else if (found.isDirectory) {
        output += `cat: ${path}: Is a directory\n`;
        exitCode = 1;
      } else if (found.hostPath !== undefined) {
        output += await this.readText(found.hostPath).catch((error: unknown) => {
          exitCode = 1;
          return `cat: ${path}: ${cLibraryText(error)}\n`;
        });
      }
    }
    return { exitCode, output };
  }

  private async readText(hostPath: string): Promise<string> {
    return new TextDecoder().decode(await this.host.readFile(hostPath));
  }

  private async statCommand(paths: readonly string[]): Promise<ProbeCommandResult> {
    let output = "";
    let exitCode = 0;
    for (const path of paths) {
      const found = await this.lookup(path);
      if (found.ok) output += `  File: ${path}\n`;
      else {
        output += `stat: cannot statx '${path}': ${found.error}\n`;
        exitCode = 1;
      }
    }
    return { exitCode, output };
  }

  private async df(paths: readonly string[]): Promise<ProbeCommandResult> {
    let output = "";
    let exitCode = 0;
    for (const path of paths) {
      const found = await this.lookup(path);
      if (!found.ok) {
        output += `df: ${path}: ${found.error}\n`;
        exitCode = 1;
      }
    }
    return { exitCode, output };
  }

  /**
   * `grep [-q] PATTERN FILE…`: the lines holding PATTERN (prefixed with the file name when there are
   * several files); exit 0 when a line matched, 1 when none did, 2 when a file could not be read.
   */
  private async grep(operands: readonly string[], quiet: boolean): Promise<ProbeCommandResult> {
    const [pattern, ...paths] = operands;
    if (pattern === undefined || paths.length === 0) return failed(grepTroubleExitCode, grepUsageText);
    let output = "";
    let matched = false;
    let trouble = false;
    for (const path of paths) {
      const found = await this.lookup(path);
      if (!found.ok) {
        output += `grep: ${path}: ${found.error}
`;
        trouble = true;
        continue;
      }
      if (found.isDirectory) {
        output += `grep: ${path}: Is a directory
`;
        trouble = true;
        continue;
      }
      if (found.hostPath === undefined) {
        matched = true; // a file of the image, which is not modelled: taken to match
        continue;
      }
      const lines = (await this.readText(found.hostPath)).split("\n").filter((line) => line.includes(pattern));
      if (lines.length > 0) matched = true;
      if (!quiet) output += lines.map((line) => `${paths.length > 1 ? `${path}:` : ""}${line}\n`).join("");
    }
    // -q: exit 0 at the first match, errors or not, and print no lines.
    if (quiet && matched) return ok();
    return { exitCode: trouble ? grepTroubleExitCode : matched ? 0 : 1, output };
  }

  /** `test -e|-f|-d path` exits 0 or 1 and prints nothing. */
  private async test(args: readonly string[]): Promise<ProbeCommandResult> {
    const [flag, path] = args.length === 1 ? ["-n", args[0]] : args;
    if (path === undefined) return failed(1, "");
    if (flag === "-n" || flag === undefined) return path === "" ? failed(1, "") : ok();
    const found = await this.lookup(path);
    if (!found.ok) return failed(1, "");
    if (flag === "-d") return found.isDirectory ? ok() : failed(1, "");
    if (flag === "-f") return found.isDirectory ? failed(1, "") : ok();
    return ok();
  }
}
