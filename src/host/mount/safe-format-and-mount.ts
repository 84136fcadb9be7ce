/**
 * mount-utils' SafeFormatAndMount: mount a block device, formatting it first only when blkid finds
 * nothing on it, and running fsck before read-write mounts of a formatted device. A disk with data
 * or a partition table is never formatted; a read-only request never formats.
 */

import { errorMessage } from "../../runtime/error-message.ts";
import { goQuote } from "../../runtime/go-quote.ts";
import { type Host, isHostError } from "../host.ts";
import { exitStatusText, failureText, outputOf, runCommand } from "./command-outcome.ts";
import {
  blkidNothingFoundExitStatus,
  defaultFilesystemType,
  fsckErrorsCorrectedExitStatus,
  fsckErrorsUncorrectedExitStatus,
  partitionedDiskFormat,
} from "./constants.ts";
import { maskedOptionsText } from "./mount-args.ts";
import type { MountCallOptions, Mounter } from "./mounter.ts";

/** mount-utils' MountErrorType: lets the kubelet tell a filesystem mismatch from other failures. */
type MountErrorType =
  | "GetDiskFormatFailed"
  | "UnformattedReadOnly"
  | "FormatFailed"
  | "HasFilesystemErrors"
  | "FilesystemMismatch"
  | "UnknownMountError";

export class MountError extends Error {
  readonly type: MountErrorType;
  constructor(type: MountErrorType, message: string) {
    super(message);
    this.name = "MountError";
    this.type = type;
  }
}

interface FormatAndMountOptions extends MountCallOptions {
  /** Extra mkfs arguments, placed before the defaults (`-F -m0` for ext*, `-f` for xfs). */
  formatOptions?: readonly string[];
}

/**
 * The filesystem on `disk` according to `blkid -p -s TYPE -s PTTYPE -o export`: "" when there is
 * none (blkid exit 2), `unknown data, probably partitions` when a partition table is found.
 */
export async function getDiskFormat(host: Host, disk: string): Promise<string> {
  const outcome = await runCommand(host, "blkid", ["-p", "-s", "TYPE", "-s", "PTTYPE", "-o", "export", disk]);
  if (outcome.kind === "exited" && outcome.result.exitCode === blkidNothingFoundExitStatus) return "";
  const failure = failureText(outcome);
  if (failure !== undefined) throw new Error(failure);
  let fsType = "";
  let partitionTableType = "";
  for (const line of outputOf(outcome).split("\n")) {
    if (line === "") continue;
    const parts = line.split("=");
    if (parts.length !== 2) throw new Error(`blkid returns invalid output: ${outputOf(outcome)}`);
    if (parts[0] === "TYPE") fsType = parts[1] as string;
    else if (parts[0] === "PTTYPE") partitionTableType = parts[1] as string;
  }
  return partitionTableType === "" ? fsType : partitionedDiskFormat;
}

export class SafeFormatAndMount {
  readonly mounter: Mounter;

  constructor(mounter: Mounter) {
    this.mounter = mounter;
  }

  private get host(): Host {
    return this.mounter.host;
  }

  /** Formats `source` if it holds nothing (and the mount is read-write), checks it, and mounts it on `target`. */
  async formatAndMount(
    source: string,
    target: string,
    requestedFsType: string,
    requestedOptions: readonly string[],
    callOptions: FormatAndMountOptions = {},
  ): Promise<void> {
    const sensitiveOptions = callOptions.sensitiveOptions ?? [];
    const readOnly = requestedOptions.includes("ro") || sensitiveOptions.includes("ro");
    const options = [...requestedOptions, "defaults"];
    const fsType = requestedFsType === "" ? defaultFilesystemType : requestedFsType;

    let existingFormat: string;
    try {
      existingFormat = await getDiskFormat(this.host, source);
    } catch (error) {
      throw new MountError(
        "GetDiskFormatFailed",
        `failed to get disk format of disk ${source}: ${errorMessage(error)}`,
      );
    }

    let mountErrorType: MountErrorType = "UnknownMountError";
    if (existingFormat === "") {
      if (readOnly) {
        throw new MountError(
          "UnformattedReadOnly",
          `cannot mount unformatted disk ${source} as we are manipulating it in read-only mode`,
        );
      }
      await this.format(source, target, fsType, options, sensitiveOptions, callOptions.formatOptions ?? []);
    } else {
      if (fsType !== existingFormat) {
        // The two types appear in this order in Kubernetes' own warning.
        mountErrorType = "FilesystemMismatch";
        this.mounter.logger.warning(
          `Configured to mount disk ${source} as ${existingFormat} but current format is ${fsType}, things might break`,
        );
      }
      if (!readOnly) await this.checkAndRepairFilesystem(source);
    }

    try {
      await this.mounter.mount(source, target, fsType, options, callOptions);
    } catch (error) {
      throw new MountError(mountErrorType, errorMessage(error));
    }
  }

  private async format(
    source: string,
    target: string,
    fsType: string,
    options: readonly string[],
    sensitiveOptions: readonly string[],
    formatOptions: readonly string[],
  ): Promise<void> {
    const args = [...formatOptions, ...defaultFormatArgs(fsType), source];
    this.mounter.logger.info(
      `Disk ${goQuote(source)} appears to be unformatted, attempting to format as type: ${goQuote(fsType)} with options: [${args.join(" ")}]`,
    );
    const outcome = await runCommand(this.host, `mkfs.${fsType}`, args);
    const failure = failureText(outcome);
    if (failure !== undefined) {
      throw new MountError(
        "FormatFailed",
        `format of disk ${goQuote(source)} failed: type:(${goQuote(fsType)}) target:(${goQuote(target)}) ` +
          `options:(${goQuote(maskedOptionsText(options, sensitiveOptions))}) errcode:(${failure}) output:(${outputOf(outcome)}) `,
      );
    }
    this.mounter.logger.info(`Disk successfully formatted (mkfs): ${fsType} - ${source} ${target}`);
  }

  /** `fsck -a`: exit 1 (corrected) is only reported, exit 4 (uncorrected) fails the mount. */
  private async checkAndRepairFilesystem(source: string): Promise<void> {
    const outcome = await runCommand(this.host, "fsck", ["-a", source]);
    const logger = this.mounter.logger;
    if (outcome.kind === "failedToRun" && isHostError(outcome.error, "ENOENT")) {
      logger.warning("'fsck' not found on system; continuing mount without running 'fsck'.");
      return;
    }
    if (outcome.kind === "failedToRun") {
      logger.warning(`fsck on device ${source} failed with error ${outcome.errorText}, output: `);
      return;
    }
    const { exitCode, output } = outcome.result;
    if (exitCode === 0) return;
    if (exitCode === fsckErrorsCorrectedExitStatus) {
      logger.info(`Device ${source} has errors which were corrected by fsck.`);
    } else if (exitCode === fsckErrorsUncorrectedExitStatus) {
      throw new MountError(
        "HasFilesystemErrors",
        `'fsck' found errors on device ${source} but could not correct them: ${output}`,
      );
    } else if (exitCode > fsckErrorsUncorrectedExitStatus) {
      logger.info(`\`fsck\` error ${output}`);
    } else {
      logger.warning(`fsck on device ${source} failed with error ${exitStatusText(exitCode)}, output: ${output}`);
    }
  }
}

/** ext3/ext4: force, and reserve no blocks for root (`-F -m0`); xfs: force (`-f`). */
function defaultFormatArgs(fsType: string): string[] {
  if (fsType === "ext4" || fsType === "ext3") return ["-F", "-m0"];
  if (fsType === "xfs") return ["-f"];
  return [];
}
