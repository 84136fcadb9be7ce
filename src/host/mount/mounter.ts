/**
 * Kubernetes' mount-utils `Mounter`, over any Host. It runs mount(8) and umount(8) exactly as the
 * kubelet does — the same arguments, the same transient systemd scope, the same error texts — so a
 * FailedMount event reads the same on a simulated node and on a real one.
 *
 *   const mounter = new Mounter(host, { logger });
 *   await mounter.mount("10.0.0.1:/export", target, "nfs", ["ro"]);            // via systemd-run when present
 *   await mounter.mount("tmpfs", dir, "tmpfs", ["size=1048576"], { withSystemd: false });
 *   await mounter.mount(globalPath, podPath, "", ["bind", "ro"]);              // bind, then remount,bind,ro
 *   await mounter.unmount(podPath);
 */
import { type Host, isHostError, type MountInfo } from "../host.ts";
import { type CommandOutcome, failureText, outputOf, runCommand } from "./command-outcome.ts";
import {
  mountCommand,
  safeNotMountedProbeDirName,
  systemdProbeDescription,
  systemdRunCommand,
  umountCommand,
  umountNotMountedText,
} from "./constants.ts";
import { discardingMountLogger, type MountLogger } from "./logger.ts";
import {
  type MountCommandLine,
  type MountRequest,
  makeMountArgs,
  planBindMount,
  wrapInSystemdScope,
} from "./mount-args.ts";
import { getMountRefs, isLikelyNotMountPoint } from "./mount-points.ts";

interface MounterOptions {
  /** Receives mount-utils' log lines (systemd detection, skipped cleanups, forced unmounts). */
  logger?: MountLogger;
  /**
   * A directory (e.g. the kubelet root) in which to probe once whether umount(8) says "not mounted"
   * for a plain directory. When it does, "not mounted" is not an unmount error and cleanup may skip
   * its mount-point check. Without it, that behaviour stays off.
   */
  safeNotMountedProbeParentDir?: string;
}

export interface MountCallOptions {
  /** Options passed to mount(8) but shown as `<masked>` in every message (credentials, keys). */
  sensitiveOptions?: readonly string[];
  /**
   * Whether the mount may run in a transient systemd scope when the node has systemd (default true).
   * emptyDir tmpfs, hugetlbfs and recent NFS pass false, as mount-utils' WithoutSystemd variants.
   */
  withSystemd?: boolean;
}

/** A mount(8) call that failed; the message is mount-utils' multi-line text with options masked. */
export class MountCommandError extends Error {
  /** `exit status 32`, or why the command could not run. */
  readonly failure: string;
  readonly command: string;
  /** The arguments as shown (sensitive options masked). */
  readonly argsText: string;
  readonly output: string;
  constructor(failure: string, line: MountCommandLine, output: string) {
    super(
      `mount failed: ${failure}\nMounting command: ${line.command}\nMounting arguments: ${line.argsText}\nOutput: ${output}`,
    );
    this.name = "MountCommandError";
    this.failure = failure;
    this.command = line.command;
    this.argsText = line.argsText;
    this.output = output;
  }
}

/** A umount(8) call that failed: `unmount failed: <err>\nUnmounting arguments: <target>\nOutput: <out>`. */
export class UnmountCommandError extends Error {
  readonly failure: string;
  readonly target: string;
  readonly output: string;
  constructor(failure: string, target: string, output: string) {
    super(`unmount failed: ${failure}\nUnmounting arguments: ${target}\nOutput: ${output}`);
    this.name = "UnmountCommandError";
    this.failure = failure;
    this.target = target;
    this.output = output;
  }
}

export class Mounter {
  readonly host: Host;
  readonly logger: MountLogger;
  private readonly safeNotMountedProbeParentDir: string | undefined;
  /** Detected once per Mounter, on first need, as mount-utils does. */
  private systemdDetection: Promise<boolean> | undefined;
  private safeNotMountedDetection: Promise<boolean> | undefined;

  constructor(host: Host, options: MounterOptions = {}) {
    this.host = host;
    this.logger = options.logger ?? discardingMountLogger;
    this.safeNotMountedProbeParentDir = options.safeNotMountedProbeParentDir;
  }

  /**
   * Mounts `source` on `target`. Bind requests take two mount(8) calls: the bind itself, then a
   * `bind,remount` carrying the other options (a bind mount ignores flags such as `ro` otherwise).
   */
  async mount(
    source: string,
    target: string,
    fstype: string,
    options: readonly string[],
    callOptions: MountCallOptions = {},
  ): Promise<void> {
    const sensitiveOptions = callOptions.sensitiveOptions ?? [];
    const trySystemd = callOptions.withSystemd ?? true;
    const bindPlan = planBindMount(options, sensitiveOptions);
    if (bindPlan === undefined) {
      await this.runMount({ source, target, fstype, options, sensitiveOptions }, trySystemd);
      return;
    }
    const sensitive = bindPlan.remountSensitiveOptions;
    await this.runMount(
      { source, target, fstype, options: bindPlan.bindOptions, sensitiveOptions: sensitive },
      trySystemd,
    );
    await this.runMount(
      { source, target, fstype, options: bindPlan.remountOptions, sensitiveOptions: sensitive },
      trySystemd,
    );
  }

  /** `umount <target>`; a "not mounted" failure is ignored only when the safe behaviour was detected. */
  async unmount(target: string): Promise<void> {
    const outcome = await runCommand(this.host, umountCommand, [target]);
    await this.checkUnmountOutcome(target, outcome);
  }

  /**
   * `umount <target>` with a deadline; when it passes (a hung NFS server), `umount -f <target>`.
   * Other failures of the first attempt are returned as they are.
   */
  async unmountWithForce(target: string, timeoutMs: number): Promise<void> {
    const outcome = await runCommand(this.host, umountCommand, [target], timeoutMs);
    if (outcome.kind === "failedToRun" && isHostError(outcome.error, "ETIMEDOUT")) {
      this.logger.info(`Timed out waiting for unmount of ${target}, trying with -f`);
      const forced = await runCommand(this.host, umountCommand, ["-f", target]);
      await this.checkUnmountOutcome(target, forced);
      return;
    }
    await this.checkUnmountOutcome(target, outcome);
  }

  /** The node's mount table. */
  list(): Promise<MountInfo[]> {
    return this.host.mountInfo();
  }

  isLikelyNotMountPoint(path: string): Promise<boolean> {
    return isLikelyNotMountPoint(this.host, path);
  }

  getMountRefs(path: string): Promise<string[]> {
    return getMountRefs(this.host, path, this.logger);
  }

  /** True when `systemd-run` is on PATH and a probe scope runs: mounts then go through a transient scope. */
  hasSystemd(): Promise<boolean> {
    this.systemdDetection ??= this.detectSystemd();
    return this.systemdDetection;
  }

  /** True when umount(8) reports "not mounted" for a plain directory, so cleanup can unmount without checking first. */
  canSafelySkipMountPointCheck(): Promise<boolean> {
    this.safeNotMountedDetection ??= this.detectSafeNotMounted();
    return this.safeNotMountedDetection;
  }

  private async runMount(request: MountRequest, trySystemd: boolean): Promise<void> {
    let line = makeMountArgs(mountCommand, request);
    if (trySystemd && (await this.hasSystemd())) line = wrapInSystemdScope(request.target, line);
    const outcome = await runCommand(this.host, line.command, line.args);
    const failure = failureText(outcome);
    if (failure === undefined) return;
    const error = new MountCommandError(failure, line, outputOf(outcome));
    this.logger.warning(
      `Mount failed: ${failure}\nMounting command: ${line.command}\nMounting arguments: ${line.argsText}`,
    );
    throw error;
  }

  private async checkUnmountOutcome(target: string, outcome: CommandOutcome): Promise<void> {
    const failure = failureText(outcome);
    if (failure === undefined) return;
    const output = outputOf(outcome);
    if (output.includes(umountNotMountedText) && (await this.canSafelySkipMountPointCheck())) {
      this.logger.info(`ignoring 'not mounted' error for ${target}`);
      return;
    }
    throw new UnmountCommandError(failure, target, output);
  }

  private async detectSystemd(): Promise<boolean> {
    if (!(await this.host.hasCommand(systemdRunCommand))) {
      this.logger.info("Detected OS without systemd");
      return false;
    }
    // systemd-run can be installed without systemd running (a container with a systemd-based image
    // but another PID 1); only a scope that really starts proves systemd is there.
    const probe = await runCommand(this.host, systemdRunCommand, [
      `--description=${systemdProbeDescription}`,
      "--scope",
      "true",
    ]);
    const failure = failureText(probe);
    if (failure !== undefined) {
      this.logger.info(`Cannot run systemd-run, assuming non-systemd OS (${failure}: ${outputOf(probe).trim()})`);
      return false;
    }
    this.logger.info("Detected OS with systemd");
    return true;
  }

  private async detectSafeNotMounted(): Promise<boolean> {
    const parentDir = this.safeNotMountedProbeParentDir;
    if (parentDir === undefined) return false;
    const probeDir = `${parentDir.replace(/\/+$/, "")}/${safeNotMountedProbeDirName}`;
    try {
      await this.host.mkdir(probeDir, 0o700, { recursive: true });
    } catch (error) {
      this.logger.info(`Cannot create ${probeDir} to detect safe 'not mounted' behavior: ${String(error)}`);
      return false;
    }
    const outcome = await runCommand(this.host, umountCommand, [probeDir]);
    await this.removeProbeDir(probeDir);
    const safe = failureText(outcome) !== undefined && outputOf(outcome).includes(umountNotMountedText);
    this.logger.info(`Detected umount with ${safe ? "safe" : "unsafe"} 'not mounted' behavior`);
    return safe;
  }

  private async removeProbeDir(probeDir: string): Promise<void> {
    try {
      await this.host.rmdir(probeDir);
    } catch (error) {
      this.logger.warning(`Cannot remove ${probeDir} after the 'not mounted' probe: ${String(error)}`);
    }
  }
}
