/**
 * Property-based fuzzing of the command line's argument readers: random argument lists built from
 * each command's real flags and hostile values are either read or refused with an Error whose
 * message says what is wrong (which the command prints before exiting 2), never an internal error.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { fuzzRuns, fuzzSeed } from "../apiserver/testing/fuzz-values.ts";
import { parseResourceArgs } from "./client/resource-args.ts";
import { parseCsiControllerFlags } from "./embedded/csi-controller-flag.ts";
import { parseEventTtlFlag } from "./event-ttl-flag.ts";
import { parseFaultArguments } from "./fault-command.ts";
import { parseNodeArguments } from "./node-command.ts";
import { parseNodeDriverRegistrarArguments } from "./node-driver-registrar-command.ts";
import { parseServerArguments } from "./server-command.ts";
import { parseRunArguments } from "./sim-command.ts";
import { parseExploreArguments } from "./sim-explore-command.ts";
import { parseUpArguments } from "./up-command.ts";

const options = { seed: fuzzSeed, numRuns: fuzzRuns(50) };

/** Messages that betray a bug rather than explain a mistake. */
const internalError = /Cannot read propert|is not a function|is not iterable|undefined is not|Maximum call stack/;

const flags = [
  "--nodes",
  "--speed",
  "--host",
  "--etcd",
  "--data",
  "--ephemeral",
  "--port",
  "--log-level",
  "--event-ttl",
  "--max-volumes-per-node",
  "--csi-controller",
  "--server",
  "--name",
  "--seed",
  "--until",
  "--json",
  "--replay",
  "--schedules",
  "--leader-elect",
  "--help",
  "-h",
  "--",
  "-",
  "--=",
  "---x",
];

const value = fc.oneof(
  fc.constantFrom(
    "",
    "0",
    "-1",
    "1e999",
    "NaN",
    "9999999999999999999999",
    "1.5",
    "linux",
    "sim",
    "true",
    "false",
    "=",
    "__proto__",
  ),
  fc.constantFrom("10s", "-5m", "1h2m3s", "unix:///x.sock", "a=unix://", "http://[::1", "Ünï🙂", "\u0000"),
  fc.string({ maxLength: 10 }),
);

const argument = fc.oneof(
  fc.constantFrom(...flags),
  fc.tuple(fc.constantFrom(...flags), value).map(([flag, text]) => `${flag}=${text}`),
  value,
);

const argv = fc.array(argument, { maxLength: 6 });

/** Reads argv; a thrown refusal must be an Error that explains itself. */
async function readsOrExplains(read: () => unknown): Promise<void> {
  let answer: unknown;
  try {
    answer = await read();
  } catch (error) {
    assert.ok(error instanceof Error, `a refusal is an Error: ${String(error)}`);
    assert.ok(error.message.length > 0, "a refusal says what is wrong");
    assert.doesNotMatch(error.message, internalError);
    return;
  }
  if (typeof answer === "string") assert.doesNotMatch(answer, internalError);
  if (answer !== null && typeof answer === "object" && "error" in answer) {
    assert.doesNotMatch(String(answer.error), internalError);
  }
}

describe("CLI argument fuzzing", () => {
  const readers: [string, (args: string[]) => unknown][] = [
    ["kvol up", (args) => parseUpArguments(args)],
    ["kvol server", (args) => parseServerArguments(args)],
    ["kvol node", (args) => parseNodeArguments(args)],
    ["kvol fault", (args) => parseFaultArguments(args)],
    ["kvol sim run", (args) => parseRunArguments(args)],
    ["kvol sim explore", (args) => parseExploreArguments(args)],
    ["kvol node-driver-registrar", (args) => parseNodeDriverRegistrarArguments(args)],
    ["kvol get/delete resources", (args) => parseResourceArgs(args)],
    ["--csi-controller", (args) => parseCsiControllerFlags(args)],
    ["--event-ttl", (args) => args.map((text) => parseEventTtlFlag(text))],
  ];
  for (const [name, read] of readers) {
    it(`${name}: random arguments are read or refused with a clear message`, async () => {
      await fc.assert(
        fc.asyncProperty(argv, (args) => readsOrExplains(() => read(args))),
        options,
      );
    });
  }
});
