/**
 * cp(1) and truncate(1) of single files, as a disk driver runs them on disk images:
 * `cp --reflink=auto --sparse=always SRC DST` (holes stay holes, and what a loop device over the
 * source shows — its filesystem — comes along) and `truncate -s SIZE FILE`. Directories are not
 * copied (no -r here); a failure prints coreutils' words and exits 1.
 */
import { type CommandHandler, failed, succeeded } from "./command-context.ts";
import { errnoOf, strerror } from "./errno-text.ts";

function operands(args: readonly string[]): string[] {
  return args.filter((arg) => !arg.startsWith("-"));
}

export const cpCommand: CommandHandler = async (context, args) => {
  const [from, to, ...extra] = operands(args);
  if (from === undefined) return failed(1, "cp: missing file operand\n");
  if (to === undefined) return failed(1, `cp: missing destination file operand after '${from}'\n`);
  if (extra.length > 0) return failed(1, `cp: target '${extra.at(-1)}' is not a directory\n`);
  try {
    await context.kernel.copyFile(context.state, from, to);
  } catch (error) {
    return failed(1, `cp: cannot stat '${from}': ${strerror(errnoOf(error))}\n`);
  }
  return succeeded();
};

export const truncateCommand: CommandHandler = async (context, args) => {
  const sizeIndex = args.indexOf("-s");
  const size = Number(args[sizeIndex + 1]);
  const file = operands(args.filter((_, index) => index !== sizeIndex + 1))[0];
  if (sizeIndex < 0 || !Number.isSafeInteger(size) || size < 0) {
    return failed(1, `truncate: invalid number: '${args[sizeIndex + 1] ?? ""}'\n`);
  }
  if (file === undefined) return failed(1, "truncate: missing file operand\n");
  try {
    await context.kernel.truncateFile(context.state, file, size);
  } catch (error) {
    return failed(1, `truncate: cannot open '${file}' for writing: ${strerror(errnoOf(error))}\n`);
  }
  return succeeded();
};
