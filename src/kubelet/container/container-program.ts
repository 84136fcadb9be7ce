/**
 * What a simulated container's main process does. There are no images: a container runs "forever"
 * (a server, the image's default entrypoint) unless its command is one of the few shell forms a
 * test writes to make a container finish — `sleep 5`, `true`, `false`, `exit 3`, and the same inside
 * `sh -c "sleep 5; exit 1"`. Anything else is taken as a long-running program. `echo` prints its
 * arguments (the lines the container's log then holds); a script's echoes before a command the
 * model does not know are printed too, and the program then runs on.
 */

import type { Container } from "kubernetes-types/core/v1.js";
import { msPerSecond } from "../../runtime/duration.ts";

/** A line the program prints, `atMs` after it started. */
interface ProgramOutput {
  atMs: number;
  text: string;
}

export type ContainerProgram =
  /** Runs until stopped. */
  | { kind: "forever"; output?: readonly ProgramOutput[] }
  /** Exits by itself with `exitCode` after `afterMs`. */
  | { kind: "exits"; afterMs: number; exitCode: number; output?: readonly ProgramOutput[] };

const forever: ContainerProgram = { kind: "forever" };
const shells = new Set(["sh", "/bin/sh", "bash", "/bin/bash", "/usr/bin/sh", "/usr/bin/bash"]);
const durationSuffixSeconds: Readonly<Record<string, number>> = { "": 1, s: 1, m: 60, h: 3600, d: 86400 };

/** One step of a script: how long it takes, and the exit code it leaves (undefined: the script goes on). */
interface Step {
  durationMs: number;
  exitCode: number;
  ends: boolean;
  /** What the step prints. */
  line?: string;
}

/** An argument without the shell quotes around it. */
function unquoted(word: string): string {
  const quoted = /^(['"])(.*)\1$/.exec(word);
  return quoted === null ? word : (quoted[2] ?? "");
}

function baseName(program: string): string {
  return program.slice(program.lastIndexOf("/") + 1);
}

/** `sleep 5`, `sleep 1.5`, `sleep 2m`; undefined for `sleep infinity` or anything unreadable. */
function sleepDurationMs(argument: string | undefined): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(argument ?? "");
  if (match === null) return undefined;
  const [, amount, suffix] = match;
  return Number(amount) * (durationSuffixSeconds[suffix ?? ""] ?? 1) * msPerSecond;
}

/** One simple command as a step, or undefined when it is not one this model understands. */
function stepOf(words: readonly string[]): Step | undefined {
  const [program, argument] = words;
  if (program === undefined) return undefined;
  switch (baseName(program)) {
    case "sleep": {
      const durationMs = sleepDurationMs(argument);
      return durationMs === undefined ? undefined : { durationMs, exitCode: 0, ends: false };
    }
    case "echo":
      return { durationMs: 0, exitCode: 0, ends: false, line: words.slice(1).map(unquoted).join(" ") };
    case "true":
      return { durationMs: 0, exitCode: 0, ends: false };
    case "false":
      return { durationMs: 0, exitCode: 1, ends: false };
    case "exit": {
      const code = Number(argument ?? "0");
      return Number.isInteger(code) ? { durationMs: 0, exitCode: code & 0xff, ends: true } : undefined;
    }
    default:
      return undefined;
  }
}

/** A `sh -c` script of simple commands separated by `;`, `&&` or newlines. */
function scriptProgram(script: string): ContainerProgram {
  let elapsedMs = 0;
  let exitCode = 0;
  const output: ProgramOutput[] = [];
  for (const command of script.split(/;|&&|\n/)) {
    const words = command.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) continue;
    const step = stepOf(words);
    if (step === undefined) return output.length === 0 ? forever : { kind: "forever", output };
    if (step.line !== undefined) output.push({ atMs: elapsedMs, text: step.line });
    elapsedMs += step.durationMs;
    exitCode = step.exitCode;
    if (step.ends) break;
  }
  return { kind: "exits", afterMs: elapsedMs, exitCode, ...(output.length === 0 ? {} : { output }) };
}

/** What the container's command (entrypoint and arguments) does when run. */
export function containerProgram(container: Pick<Container, "command" | "args">): ContainerProgram {
  const words = [...(container.command ?? []), ...(container.args ?? [])];
  const [program, flag, script] = words;
  if (program === undefined) return forever;
  if (shells.has(program) && flag === "-c" && script !== undefined) return scriptProgram(script);
  const step = stepOf(words);
  if (step === undefined) return forever;
  const output = step.line === undefined ? {} : { output: [{ atMs: 0, text: step.line }] };
  return { kind: "exits", afterMs: step.durationMs, exitCode: step.exitCode, ...output };
}
