/**
 * mount(8)'s command line: `mount [-t type] [-o opts]… [--bind|-B] [--rbind|-R] [-r|-w] source target`,
 * or `mount -o remount,… target`. Options are split as the kernel splits them: per-mount flags
 * (ro, nosuid, noatime…) appear in mountinfo's mount options, everything else is the filesystem's.
 */

export interface MountRequest {
  fsType: string | undefined;
  source: string | undefined;
  target: string;
  /** Every -o option, in order, bind/remount/ro included. */
  options: string[];
  bind: boolean;
  recursiveBind: boolean;
  remount: boolean;
  readOnly: boolean;
}

type MountArgsResult = { ok: true; request: MountRequest } | { ok: false };

/** Per-mount (VFS) flags; `rw`/`ro` lead the list mountinfo prints. */
const vfsFlagNames = new Set([
  "nosuid",
  "suid",
  "nodev",
  "dev",
  "noexec",
  "exec",
  "noatime",
  "relatime",
  "nodiratime",
  "strictatime",
]);
/** Options mount(8) consumes itself; they reach neither mountinfo list. */
const commandOptionNames = new Set([
  "bind",
  "rbind",
  "remount",
  "ro",
  "rw",
  "loop",
  "defaults",
  "_netdev",
  "auto",
  "noauto",
]);
const flagArgumentOptions = new Set(["-t", "--types", "-o", "--options"]);

export function parseMountArgs(args: readonly string[]): MountArgsResult {
  const positionals: string[] = [];
  const options: string[] = [];
  let fsType: string | undefined;
  let bind = false;
  let recursiveBind = false;
  let readOnlyFlag = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? "";
    if (flagArgumentOptions.has(arg)) {
      const value = args[++index];
      if (value === undefined) return { ok: false };
      if (arg === "-t" || arg === "--types") fsType = value;
      else options.push(...splitOptions(value));
    } else if (arg.startsWith("--options=")) options.push(...splitOptions(arg.slice("--options=".length)));
    else if (arg.startsWith("--types=")) fsType = arg.slice("--types=".length);
    else if (arg === "--bind" || arg === "-B") bind = true;
    else if (arg === "--rbind" || arg === "-R") recursiveBind = true;
    else if (arg === "-r" || arg === "--read-only") readOnlyFlag = true;
    else if (arg === "-w" || arg === "--rw" || arg === "-n" || arg === "-v" || arg.startsWith("--make-")) continue;
    else if (arg === "--") {
      positionals.push(...args.slice(index + 1));
      break;
    } else if (arg.startsWith("-") && arg.length > 1) return { ok: false };
    else positionals.push(arg);
  }
  const remount = options.includes("remount");
  const target = positionals[positionals.length - 1];
  if (target === undefined || positionals.length > 2 || (!remount && positionals.length !== 2)) return { ok: false };
  return {
    ok: true,
    request: {
      fsType,
      source: positionals.length === 2 ? positionals[0] : undefined,
      target,
      options,
      bind: bind || recursiveBind || options.includes("bind") || options.includes("rbind"),
      recursiveBind: recursiveBind || options.includes("rbind"),
      remount,
      readOnly: readOnlyFlag || lastOf(options, "ro", "rw") === "ro",
    },
  };
}

function splitOptions(value: string): string[] {
  return value.split(",").filter((option) => option !== "");
}

function lastOf(options: readonly string[], first: string, second: string): string | undefined {
  for (let index = options.length - 1; index >= 0; index--) {
    const option = options[index];
    if (option === first || option === second) return option;
  }
  return undefined;
}

/** mountinfo's per-mount options: `rw` or `ro`, then the VFS flags given, `relatime` unless another atime flag is. */
export function mountOptionsFor(request: MountRequest): string[] {
  const flags = request.options.filter((option) => vfsFlagNames.has(option));
  const hasAtimeFlag = flags.some((flag) => flag.endsWith("atime"));
  return [request.readOnly ? "ro" : "rw", ...flags, ...(hasAtimeFlag ? [] : ["relatime"])];
}

/** The filesystem-specific options (size=, mode=, vers=…), which end up in the super options. */
export function filesystemOptionsOf(request: MountRequest): string[] {
  return request.options.filter((option) => !vfsFlagNames.has(option) && !commandOptionNames.has(option));
}

/** The value of `name=` among the options, last one winning, as the kernel parses them. */
export function optionValue(options: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (const option of options) if (option.startsWith(`${name}=`)) value = option.slice(name.length + 1);
  return value;
}
