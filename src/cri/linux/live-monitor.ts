/**
 * A monitor still running from a previous node agent (killed outright): it was started inside the
 * node's mount namespace and keeps it alive, so a restarted agent can join that namespace and find
 * the node's mounts as it left them, instead of making a new, empty one.
 */
import { containerDirs, readShimState } from "./container-state-files.ts";
import { isMonitorOf } from "./linux-runtime-service.ts";

/** The pid of a live container monitor under `stateDir`, or undefined when none runs. */
export async function liveMonitorPid(stateDir: string): Promise<number | undefined> {
  for (const dir of await containerDirs(stateDir)) {
    const state = await readShimState(dir);
    if (state?.phase === "running" && (await isMonitorOf(state.shimPid, dir))) return state.shimPid;
  }
  return undefined;
}
