/** Process liveness from /proc: a zombie (exited, not yet reaped) counts as dead. */
import { readFile } from "node:fs/promises";

/** States in /proc/<pid>/stat of a process that has exited: zombie, dead. */
const exitedProcessStates = new Set(["Z", "X", "x"]);

export async function isProcessAlive(pid: number): Promise<boolean> {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  let stat: string;
  try {
    stat = await readFile(`/proc/${pid}/stat`, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ESRCH") {
      return false;
    }
    throw error;
  }
  // `pid (comm) S ...`: comm may contain spaces and parentheses, so the state follows the last ')'.
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return !exitedProcessStates.has(state);
}
