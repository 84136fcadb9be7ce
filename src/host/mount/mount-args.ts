/**
 * How mount-utils turns a mount request into mount(8) arguments, and the text it shows for them.
 * The shown text is what users read in `FailedMount` events, so its quirks are kept: it is built
 * piece by piece, sensitive options appear as `<masked>`, and a mount without a type starts with a
 * space (`Mounting arguments:  -o bind ...`), as Kubernetes prints it.
 */
import { maskedOptionText, systemdRunCommand, systemdTransientMountDescriptionPrefix } from "./constants.ts";

/** A command line and the text that may be logged for it (sensitive options masked). */
export interface MountCommandLine {
  command: string;
  args: string[];
  /** The argument text for logs and errors: `-t nfs -o ro,<masked> server:/export /target`. */
  argsText: string;
}

export interface MountRequest {
  source: string;
  target: string;
  fstype: string;
  options: readonly string[];
  sensitiveOptions: readonly string[];
}

/** `mount [-t <type>] [-o <opts>] [<source>] <target>`, with the masked text beside the real arguments. */
export function makeMountArgs(command: string, request: MountRequest): MountCommandLine {
  const args: string[] = [];
  let argsText = "";
  if (request.fstype !== "") {
    args.push("-t", request.fstype);
    argsText += args.join(" ");
  }
  if (request.options.length > 0 || request.sensitiveOptions.length > 0) {
    args.push("-o", [...request.options, ...request.sensitiveOptions].join(","));
    argsText += ` -o ${maskedOptionsText(request.options, request.sensitiveOptions)}`;
  }
  if (request.source !== "") {
    args.push(request.source);
    argsText += ` ${request.source}`;
  }
  args.push(request.target);
  argsText += ` ${request.target}`;
  return { command, args, argsText };
}

/** The option list as logged: plain options as they are, then one `<masked>` per sensitive option. */
export function maskedOptionsText(options: readonly string[], sensitiveOptions: readonly string[]): string {
  return [...options, ...sensitiveOptions.map(() => maskedOptionText)].join(",");
}

/**
 * Wraps a mount command into a transient systemd scope, so helper daemons it forks (FUSE, glusterfs)
 * live in that scope rather than in the agent's cgroup and survive the agent's restart.
 */
export function wrapInSystemdScope(target: string, line: MountCommandLine): MountCommandLine {
  const scopeArgs = [`--description=${systemdTransientMountDescriptionPrefix}${target}`, "--scope", "--", line.command];
  return {
    command: systemdRunCommand,
    args: [...scopeArgs, ...line.args],
    argsText: `${scopeArgs.join(" ")} ${line.argsText}`,
  };
}

/** How a bind request splits into the bind mount and the remount that applies the other flags. */
interface BindMountPlan {
  /** Options of the first mount: `bind` (plus `_netdev`, which the kernel would not carry over). */
  bindOptions: string[];
  /** Options of the second mount: `bind,remount` followed by every other requested option. */
  remountOptions: string[];
  /** Sensitive options, applied on both calls, never shown. */
  remountSensitiveOptions: string[];
}

const bindOption = "bind";
const remountOption = "remount";
/** A userspace-only option: a bind mount does not inherit it, so it is passed explicitly. */
const netdevOption = "_netdev";

/**
 * Returns the two-step plan when the options ask for a bind mount, or undefined. The flags of a bind
 * mount (ro, nosuid, ...) only take effect through a second `remount,bind` call.
 */
export function planBindMount(
  options: readonly string[],
  sensitiveOptions: readonly string[],
): BindMountPlan | undefined {
  const isBind = options.includes(bindOption) || sensitiveOptions.includes(bindOption);
  if (!isBind) return undefined;
  const notBindOrRemount = (option: string) => option !== bindOption && option !== remountOption;
  return {
    bindOptions: options.includes(netdevOption) ? [bindOption, netdevOption] : [bindOption],
    remountOptions: [bindOption, remountOption, ...options.filter(notBindOrRemount)],
    remountSensitiveOptions: sensitiveOptions.filter(notBindOrRemount),
  };
}
