import { existsSync } from "node:fs";
import { describeHostContract } from "../host-contract.ts";
import { LinuxHost } from "./linux-host.ts";
import { inPrivateMountNamespace } from "./private-mount-namespace.ts";
import { makeScratchDir, removeScratchDir } from "./scratch-dir.ts";

inPrivateMountNamespace(import.meta.filename, "Host contract: LinuxHost", () => {
  describeHostContract(
    "LinuxHost",
    async () => {
      const root = await makeScratchDir("contract");
      return { host: new LinuxHost({ nodeName: "node-a" }), root, cleanup: () => removeScratchDir(root) };
    },
    {
      tmpfs: true,
      bind: true,
      loop: existsSync("/dev/loop-control"),
      daemons: true,
      daemonCommand: { command: "sleep", args: ["3600"] },
    },
  );
});
