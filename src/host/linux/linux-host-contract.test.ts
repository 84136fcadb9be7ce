import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, readlink } from "node:fs/promises";
import { test } from "node:test";
import { RealClock } from "../../runtime/real-clock.ts";
import { describeHostContract, type HeldMount } from "../host-contract.ts";
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
/** How many looks at /proc/PID/cwd a holder gets to arrive in its directory (20 ms apart: 10 s). */
const holderArrivalLooksMax = 500;

/** A shell that changes into `path` and becomes `sleep 600` there, as someone's leftover shell would sit. */
async function holdMount(path: string): Promise<HeldMount> {
  const child = spawn("sh", ["-c", 'cd "$1" && exec sleep 600', "sh", path], { stdio: "ignore" });
  const pid = child.pid;
  if (pid === undefined) throw new Error("could not start sh");
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const release = async () => {
    child.kill("SIGKILL");
    await exited;
  };
  for (let look = 0; look < holderArrivalLooksMax; look++) {
    const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => "");
    const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (cwd === path && cmdline.startsWith("sleep")) return { pid, command: "sleep 600", release };
    await clock.sleep(fusePausePeriodMs);
  }
  await release();
  throw new Error(`the holder never reached ${path}`);
}

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
        holdMount,
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
