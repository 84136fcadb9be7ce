import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runServerCommand } from "../server-command.ts";
import { parseUpArguments, runUpCommand } from "../up-command.ts";
import { parseCsiControllerFlags } from "./csi-controller-flag.ts";

describe("--csi-controller NAME=unix:///path", () => {
  it("reads each driver's name and controller socket", () => {
    const parsed = parseUpArguments([
      "--csi-controller",
      "hostpath.csi.k8s.io=unix:///run/hostpath/csi.sock",
      "--csi-controller=ebs.csi.aws.com=unix:///var/lib/csi/ebs/controller.sock",
    ]);
    assert.deepEqual("csiControllers" in parsed && parsed.csiControllers, [
      { driverName: "hostpath.csi.k8s.io", endpoint: "unix:///run/hostpath/csi.sock" },
      { driverName: "ebs.csi.aws.com", endpoint: "unix:///var/lib/csi/ebs/controller.sock" },
    ]);
  });

  const bad: Array<[string, RegExp]> = [
    [
      "unix:///run/csi.sock",
      /^Error: --csi-controller "unix:\/\/\/run\/csi\.sock": expected NAME=unix:\/\/\/path\/to\/controller\.sock/,
    ],
    ["=unix:///run/csi.sock", /expected NAME=unix:\/\/\/path\/to\/controller\.sock/],
    ["-bad-=unix:///run/csi.sock", /"-bad-" is not a CSI driver name \(at most 63 characters/],
    [
      "my.driver=/run/csi.sock",
      /^Error: --csi-controller "my\.driver=\/run\/csi\.sock": CSI endpoint "\/run\/csi\.sock" must start with "unix:\/\/"/,
    ],
    ["my.driver=unix://run/csi.sock", /must name an absolute path/],
  ];
  for (const [value, message] of bad) {
    it(`refuses ${JSON.stringify(value)}, naming the flag`, () => {
      assert.throws(() => parseCsiControllerFlags([value]), message);
    });
  }

  it("refuses the same driver twice", () => {
    assert.throws(
      () => parseCsiControllerFlags(["a.csi=unix:///a.sock", "a.csi=unix:///b.sock"]),
      /^Error: --csi-controller: driver a\.csi is given more than once/,
    );
  });

  it("a bad value makes kvol up and kvol server exit 2 with the usage, before anything starts", async () => {
    for (const run of [runUpCommand, runServerCommand]) {
      const err: string[] = [];
      const io = {
        stdout: () => undefined,
        stderr: (text: string) => err.push(text),
        stopRequested: () => new Promise<string>(() => undefined),
      };
      assert.equal(await run(["--ephemeral", "--csi-controller", "my.driver"], io), 2);
      assert.match(err.join(""), /--csi-controller "my\.driver": expected NAME=unix:\/\/\/path\/to\/controller\.sock/);
      assert.match(err.join(""), /Usage:/);
    }
  });
});
