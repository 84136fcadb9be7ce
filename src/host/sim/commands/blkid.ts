/**
 * blkid(8) in low-level probe mode, as mount-utils runs it:
 * `blkid -p -s TYPE -s PTTYPE -o export <device>`. Prints `DEVNAME=…` and the requested tags of what
 * it finds; exits 2 with no output when it finds nothing (an unformatted disk) or cannot open the
 * device, which is how SafeFormatAndMount decides to format.
 */
import { blkidNothingFoundExitStatus } from "../../mount/constants.ts";
import { openBlockTarget } from "./block-target.ts";
import { type CommandHandler, failed, succeeded } from "./command-context.ts";
import { strerror } from "./errno-text.ts";

const allTags = ["TYPE", "PTTYPE", "UUID"];

export const blkidCommand: CommandHandler = async (context, args) => {
  const requestedTags: string[] = [];
  let device: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? "";
    if (arg === "-s") requestedTags.push(args[++index] ?? "");
    else if (arg === "-o") index++;
    else if (!arg.startsWith("-")) device = arg;
  }
  if (device === undefined) return failed(blkidNothingFoundExitStatus, "");
  const target = await openBlockTarget(context, device);
  if (target.kind === "failed")
    return failed(blkidNothingFoundExitStatus, `blkid: error: ${device}: ${strerror(target.errno)}\n`);
  const content = target.storage.content;
  const found: Array<[string, string]> = [];
  if (content.kind === "filesystem") found.push(["UUID", content.uuid], ["TYPE", content.fsType]);
  if (target.storage.partitionTable !== undefined) found.push(["PTTYPE", target.storage.partitionTable]);
  const tags = requestedTags.length > 0 ? requestedTags : allTags;
  const shown = found.filter(([tag]) => tags.includes(tag));
  if (shown.length === 0) return failed(blkidNothingFoundExitStatus, "");
  const lines = [`DEVNAME=${device}`, ...shown.map(([tag, value]) => `${tag}=${value}`)];
  return succeeded(lines.map((line) => `${line}\n`).join(""));
};
