/**
 * The command line that replays one explored run exactly: the same scenario file, seed, run options
 * and fault schedule, through `kvol sim explore FILE --seed N --replay '<schedule>'`.
 * Arguments are quoted for a POSIX shell, so the line can be pasted as printed.
 */
import { type FaultSchedule, formatFaultSchedule } from "./fault-schedule.ts";

/** Characters a POSIX shell leaves alone in an unquoted word. */
const shellSafeWord = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** `word` as one shell word: unchanged when safe, else in single quotes (a `'` written `'\''`). */
export function shellQuote(word: string): string {
  if (word !== "" && shellSafeWord.test(word)) return word;
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/** `flags`: the options the explored runs had besides the seed (`--until 5m`), so the replay has them too. */
export function replayArguments(
  file: string,
  seed: number,
  schedule: FaultSchedule,
  flags: readonly string[] = [],
): string[] {
  return ["sim", "explore", file, "--seed", String(seed), ...flags, "--replay", formatFaultSchedule(schedule)];
}

export function replayCommand(
  file: string,
  seed: number,
  schedule: FaultSchedule,
  flags: readonly string[] = [],
): string {
  return ["kvol", ...replayArguments(file, seed, schedule, flags)].map(shellQuote).join(" ");
}
