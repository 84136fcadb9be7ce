/**
 * Wraps a Host so tests can see which commands a plugin ran (`mount -t tmpfs ...` directly, or
 * through `systemd-run --scope`), the way an operator reads them in the kubelet's log.
 */
import type { CommandResult, Host, RunOptions } from "../../host/host.ts";

export interface RecordedCommand {
  command: string;
  args: readonly string[];
}

export function recordCommands(host: Host): { host: Host; commands: RecordedCommand[] } {
  const commands: RecordedCommand[] = [];
  const recording = new Proxy(host, {
    get(target, property, receiver) {
      if (property === "run") {
        return (command: string, args: readonly string[], options?: RunOptions): Promise<CommandResult> => {
          commands.push({ command, args: [...args] });
          return target.run(command, args, options);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { host: recording, commands };
}

/** `mount -t tmpfs tmpfs /dir` as one line. */
export function commandLine(recorded: RecordedCommand): string {
  return [recorded.command, ...recorded.args].join(" ");
}
