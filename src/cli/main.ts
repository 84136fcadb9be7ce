/**
 * The `kvol` command line: dispatches to the sub-commands of `commands.ts`. An unknown one prints
 * the usage and exits 2 (a usage error), never a stack trace.
 */
import { readFileSync } from "node:fs";
import { commands } from "./commands.ts";

function usage(): string {
  const width = Math.max(...[...commands.keys(), "version", "help"].map((name) => name.length)) + 2;
  const rows = [
    ...[...commands].map(([name, entry]) => [name, entry.summary] as const),
    ["version", "print kvol's version"] as const,
    ["help", "print this help"] as const,
  ];
  const lines = rows.map(([name, summary]) => `  kvol ${name.padEnd(width)}${summary}`);
  return `kvol — the Kubernetes volume lifecycle, runnable\n\nUsage:\n${lines.join("\n")}\n\nRun \`kvol COMMAND --help\` for a command's options.\n`;
}

function packageVersion(): string {
  const text = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
  const parsed: unknown = JSON.parse(text);
  const version = (parsed as { version?: unknown }).version;
  return typeof version === "string" ? version : "unknown";
}

function main(argv: readonly string[]): number | Promise<number> {
  const [command] = argv;
  const entry = command === undefined ? undefined : commands.get(command);
  if (entry !== undefined) return entry.run(argv.slice(1));
  switch (command) {
    case "version":
    case "--version":
      process.stdout.write(`kvol ${packageVersion()}\n`);
      return 0;
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(usage());
      return 0;
    default:
      process.stderr.write(`kvol: unknown command "${command}"\n\n${usage()}`);
      return 2;
  }
}

Promise.resolve(main(process.argv.slice(2))).then((exitCode) => {
  process.exitCode = exitCode;
});
