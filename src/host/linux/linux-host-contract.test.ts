import { existsSync } from "node:fs";
import { test } from "node:test";
import { describeHostContract } from "../host-contract.ts";
import { LinuxHost } from "./linux-host.ts";
import { inPrivateMountNamespace, requireOrSkip } from "./private-mount-namespace.ts";
import { makeScratchDir, removeScratchDir } from "./scratch-dir.ts";

/** The loop-device cases need the loop driver; without it they are reported, never left out silently. */
const loopAvailable = existsSync("/dev/loop-control");

inPrivateMountNamespace(import.meta.filename, "Host contract: LinuxHost", () => {
  if (!loopAvailable) {
    test("LinuxHost loop devices (losetup)", (t) => {
      requireOrSkip(t, "no /dev/loop-control here: load the loop module (modprobe loop)");
    });
  }
  describeHostContract(
    "LinuxHost",
    async () => {
      const root = await makeScratchDir("contract");
      return { host: new LinuxHost({ nodeName: "node-a" }), root, cleanup: () => removeScratchDir(root) };
    },
    {
      tmpfs: true,
      bind: true,
      loop: loopAvailable,
      daemons: true,
      daemonCommand: { command: "sleep", args: ["3600"] },
    },
  );
});
