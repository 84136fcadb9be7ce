import { describeHostContract } from "../host-contract.ts";
import { newTestWorld } from "./testing/sim-test-world.ts";

describeHostContract(
  "SimHost",
  async () => {
    const { world } = newTestWorld();
    const host = world.addNode("node-a");
    await host.mkdir("/contract", 0o755);
    // The world lives in memory and is dropped with the test: nothing to clean up.
    // A simulated FUSE daemon mounts before startDaemon returns and exits with its unmount: no pause is needed.
    return {
      host,
      root: "/contract",
      cleanup: () => Promise.resolve(),
      pause: () => Promise.resolve(),
      holdMount: async (path) => {
        const hold = await host.holdMountBusy(path, "sleep 600");
        return { ...hold.holder, release: () => host.killProcess(hold.holder.pid) };
      },
    };
  },
  { tmpfs: true, bind: true, loop: true, daemons: true, fuse: true, daemonCommand: { command: "true", args: [] } },
);
