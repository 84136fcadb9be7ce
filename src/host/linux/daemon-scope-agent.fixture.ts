/**
 * Test fixture: a stand-in for a node agent. It starts one daemon of each scope through LinuxHost,
 * prints their pids (and the own-scope daemon's cgroup) as one JSON line, and then waits to be
 * killed. daemons.test.ts kills it the way a container restart would and looks at who survived.
 */
import { LinuxHost } from "./linux-host.ts";

const daemonCommand = "sleep";
/** Long enough to outlive any test; the test kills the daemons itself. */
const daemonLifetimeSeconds = "600";

const host = new LinuxHost({ nodeName: "agent-fixture" });
const own = await host.startDaemon({
  name: "fuse:own",
  command: daemonCommand,
  args: [daemonLifetimeSeconds],
  scope: "own",
});
const agent = await host.startDaemon({
  name: "fuse:agent",
  command: daemonCommand,
  args: [daemonLifetimeSeconds],
  scope: "agent",
});
process.stdout.write(
  `${JSON.stringify({ own: own.pid, agent: agent.pid, ownCgroup: host.daemonCgroup(own.pid) ?? null })}\n`,
);
// Stay alive until killed: an open stdin keeps the event loop busy without a timer.
process.stdin.resume();
