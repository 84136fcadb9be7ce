/**
 * The `kvol` command line. Sub-commands are added as their parts land; an unknown one prints the
 * usage and exits 2 (a usage error), never a stack trace.
 */
import { readFileSync } from "node:fs";

const USAGE = `kvol — the Kubernetes volume lifecycle, runnable

Usage:
  kvol version        print kvol's version
  kvol csi-driver     run a bundled CSI driver on a Unix socket (kvol csi-driver --help)
  kvol help           print this help

The embedded cluster (kvol up), the simulator (kvol sim) and the client commands arrive with
their parts; see README.md.
`;

function packageVersion(): string {
  const text = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
  const parsed: unknown = JSON.parse(text);
  const version = (parsed as { version?: unknown }).version;
  return typeof version === "string" ? version : "unknown";
}

export function main(argv: readonly string[]): number | Promise<number> {
  const [command] = argv;
  switch (command) {
    case "csi-driver":
      // Loaded on demand: only this command needs gRPC and the drivers.
      return import("./csi-driver-command.ts").then((command) => command.runCsiDriverCommand(argv.slice(1)));
    case "version":
    case "--version":
      process.stdout.write(`kvol ${packageVersion()}\n`);
      return 0;
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`kvol: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

Promise.resolve(main(process.argv.slice(2))).then((exitCode) => {
  process.exitCode = exitCode;
});
