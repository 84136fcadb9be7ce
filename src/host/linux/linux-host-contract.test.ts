import { existsSync } from "node:fs";
import { test } from "node:test";
import { RealClock } from "../../runtime/real-clock.ts";
import { describeHostContract } from "../host-contract.ts";
import { LinuxHost } from "./linux-host.ts";
import { inPrivateMountNamespace, requireOrSkip } from "./private-mount-namespace.ts";
import { whyRealFuseCannotRun } from "./real-fuse-requirements.ts";
import { makeScratchDir, removeScratchDir } from "./scratch-dir.ts";

/** The loop-device cases need the loop driver; without it they are reported, never left out silently. */
const loopAvailable = existsSync("/dev/loop-control");
/** The FUSE cases need /dev/fuse and bindfs; without them they are reported the same way. */
const whyNoFuse = whyRealFuseCannotRun("bindfs");
/** Between two looks at a FUSE daemon mounting or exiting. */
const fusePausePeriodMs = 20;
const clock = new RealClock();

inPrivateMountNamespace(import.meta.filename, "Host contract: LinuxHost", () => {
  if (!loopAvailable) {
    test("LinuxHost loop devices (losetup)", (t) => {
      requireOrSkip(t, "no /dev/loop-control here: load the loop module (modprobe loop)");
    });
  }
  if (whyNoFuse !== undefined) {
    test("LinuxHost FUSE (bindfs)", (t) => {
      requireOrSkip(t, whyNoFuse);
    });
  }
  describeHostContract(
    "LinuxHost",
    async () => {
      const root = await makeScratchDir("contract");
      return {
        host: new LinuxHost({ nodeName: "node-a" }),
        root,
        cleanup: () => removeScratchDir(root),
        pause: () => clock.sleep(fusePausePeriodMs),
      };
    },
    {
      tmpfs: true,
      bind: true,
      loop: loopAvailable,
      daemons: true,
      fuse: whyNoFuse === undefined,
      daemonCommand: { command: "sleep", args: ["3600"] },
    },
  );
});
