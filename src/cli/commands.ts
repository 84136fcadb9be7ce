/**
 * The table of `kvol` sub-commands. Each is loaded on demand, so `kvol version` does not pay for
 * gRPC, SQLite or the simulator. A command's `run` returns the process exit status: 0 success,
 * 1 failure (an expectation failed, the server refused), 2 a usage error.
 */

interface CommandEntry {
  /** One line for `kvol help`. */
  readonly summary: string;
  readonly run: (args: readonly string[]) => Promise<number>;
}

export const commands: ReadonlyMap<string, CommandEntry> = new Map<string, CommandEntry>([
  [
    "up",
    {
      summary: "start the whole cluster in one process: API server, controllers, simulated nodes",
      run: async (args) => (await import("./up-command.ts")).runUpCommand(args),
    },
  ],
  [
    "server",
    {
      summary: "run the control plane alone (API server, controllers); nodes join with kvol node",
      run: async (args) => (await import("./server-command.ts")).runServerCommand(args),
    },
  ],
  [
    "node",
    {
      summary: "run one node joined to an API server over HTTP: simulated, or this machine (--host linux)",
      run: async (args) => (await import("./node-command.ts")).runNodeCommand(args),
    },
  ],
  [
    "image",
    {
      summary: "add a root filesystem to the image store of real nodes (kvol image import NAME DIR|TAR)",
      run: async (args) => (await import("./image-command.ts")).runImageCommand(args),
    },
  ],
  [
    "apply",
    {
      summary: "create or update objects from YAML or JSON files (server-side apply)",
      run: async (args) => (await import("./apply-command.ts")).runApplyCommand(args),
    },
  ],
  [
    "get",
    {
      summary: "show objects as kubectl does: tables, -o wide|yaml|json|name, -w to watch",
      run: async (args) => (await import("./get-command.ts")).runGetCommand(args),
    },
  ],
  [
    "describe",
    {
      summary: "describe a pod, pvc, pv, node or volumeattachment with its events",
      run: async (args) => (await import("./describe-command.ts")).runDescribeCommand(args),
    },
  ],
  [
    "why",
    {
      summary: "why a pod, pvc, pv, volumeattachment or node is stuck: the chain down to its cause, and what to do",
      run: async (args) => (await import("./why-command.ts")).runWhyCommand(args),
    },
  ],
  [
    "delete",
    {
      summary: "delete objects and wait until they are gone",
      run: async (args) => (await import("./delete-command.ts")).runDeleteCommand(args),
    },
  ],
  [
    "fault",
    {
      summary: "inject a fault of the catalogue into the running kvol up cluster",
      run: async (args) => (await import("./fault-command.ts")).runFaultCommand(args),
    },
  ],
  [
    "speed",
    {
      summary: "show or change how fast the running kvol up cluster's clock goes (kvol speed 60)",
      run: async (args) => (await import("./speed-command.ts")).runSpeedCommand(args),
    },
  ],
  [
    "sim",
    {
      summary: "replay scenarios on virtual time and explore random faults (kvol sim run|explore FILE…)",
      run: async (args) => (await import("./sim-command.ts")).runSimCommand(args),
    },
  ],
  [
    "completion",
    {
      summary: "print a bash or zsh completion script",
      run: async (args) => (await import("./completion-command.ts")).runCompletionCommand(args),
    },
  ],
  [
    "csi-driver",
    {
      summary: "run a bundled CSI driver on a Unix socket",
      run: async (args) => (await import("./csi-driver-command.ts")).runCsiDriverCommand(args),
    },
  ],
  [
    "node-driver-registrar",
    {
      summary: "register any CSI driver with a node's kubelet, as kubernetes-csi's node-driver-registrar",
      run: async (args) => (await import("./node-driver-registrar-command.ts")).runNodeDriverRegistrarCommand(args),
    },
  ],
]);
