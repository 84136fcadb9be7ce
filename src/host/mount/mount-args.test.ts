import assert from "node:assert/strict";
import { test } from "node:test";
import { makeMountArgs, maskedOptionsText, planBindMount, wrapInSystemdScope } from "./mount-args.ts";

const podDir = "/var/lib/kubelet/pods/cddc94e7-8033-4150-bed5-d141e3b71e49/volumes/kubernetes.io~nfs/nfs211";

test("an NFS mount without options reads as in the FailedMount event of seed 002", () => {
  const line = makeMountArgs("mount", {
    source: "10.20.172.211:/nfs",
    target: podDir,
    fstype: "nfs",
    options: [],
    sensitiveOptions: [],
  });
  assert.deepEqual(line.args, ["-t", "nfs", "10.20.172.211:/nfs", podDir]);
  assert.equal(line.argsText, `-t nfs 10.20.172.211:/nfs ${podDir}`);
  const scoped = wrapInSystemdScope(podDir, line);
  assert.equal(scoped.command, "systemd-run");
  assert.equal(
    scoped.argsText,
    `--description=Kubernetes transient mount for ${podDir} --scope -- mount -t nfs 10.20.172.211:/nfs ${podDir}`,
  );
  assert.deepEqual(scoped.args.slice(0, 4), [
    `--description=Kubernetes transient mount for ${podDir}`,
    "--scope",
    "--",
    "mount",
  ]);
});

test("sensitive options reach mount(8) but are shown as <masked>", () => {
  const line = makeMountArgs("mount", {
    source: "//server/share",
    target: "/mnt/x",
    fstype: "cifs",
    options: ["ro", "vers=3.0"],
    sensitiveOptions: ["username=admin", "password=hunter2"],
  });
  assert.deepEqual(line.args, [
    "-t",
    "cifs",
    "-o",
    "ro,vers=3.0,username=admin,password=hunter2",
    "//server/share",
    "/mnt/x",
  ]);
  assert.equal(line.argsText, "-t cifs -o ro,vers=3.0,<masked>,<masked> //server/share /mnt/x");
  assert.doesNotMatch(line.argsText, /hunter2/);
  assert.equal(maskedOptionsText([], ["a", "b"]), "<masked>,<masked>");
});

test("a mount without a type shows a leading space, as Kubernetes prints it", () => {
  const line = makeMountArgs("mount", {
    source: "/a",
    target: "/b",
    fstype: "",
    options: ["bind"],
    sensitiveOptions: [],
  });
  assert.deepEqual(line.args, ["-o", "bind", "/a", "/b"]);
  assert.equal(line.argsText, " -o bind /a /b");
});

test("a bind request becomes a plain bind followed by a remount carrying the other flags", () => {
  assert.equal(planBindMount(["ro", "noexec"], []), undefined);
  assert.deepEqual(planBindMount(["bind", "ro", "_netdev"], ["secret=1"]), {
    bindOptions: ["bind", "_netdev"],
    remountOptions: ["bind", "remount", "ro", "_netdev"],
    remountSensitiveOptions: ["secret=1"],
  });
  assert.deepEqual(planBindMount(["ro"], ["bind"])?.remountOptions, ["bind", "remount", "ro"]);
});
