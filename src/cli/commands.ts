/**
 * The table of `kvol` sub-commands. Each is loaded on demand, so `kvol version` does not pay for
 * gRPC, SQLite or the simulator. A command's `run` returns the process exit status: 0 success,
 * 1 failure (an expectation failed, the server refused), 2 a usage error.
 */

export interface CommandEntry {
  /** One line for `kvol help`. */
  readonly summary: string;
  readonly run: (args: readonly string[]) => Promise<number>;
}

export const commands: ReadonlyMap<string, CommandEntry> = new Map<string, CommandEntry>([
  [
    "csi-driver",
    {
      summary: "run a bundled CSI driver on a Unix socket",
      run: async (args) => (await import("./csi-driver-command.ts")).runCsiDriverCommand(args),
    },
  ],
]);
