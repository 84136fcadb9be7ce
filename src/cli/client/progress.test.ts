import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { withProgress } from "./progress.ts";
import { capturedIo } from "./testing/cli-test-support.ts";

describe("progress", () => {
  it("appears on a terminal after a second and is erased at the end", async () => {
    const clock = new VirtualClock();
    const io = { ...capturedIo({}, clock), errIsTty: true };
    let stderr = "";
    io.err = (text: string) => {
      stderr += text;
    };
    await withProgress(io, "waiting for pod/web-0 to be deleted", async () => {
      await clock.advanceBy(900);
      assert.equal(stderr, "", "nothing within the first second");
      await clock.advanceBy(1_200);
    });
    assert.match(stderr, /waiting for pod\/web-0 to be deleted \(2s\)/);
    assert.ok(stderr.endsWith("\r\u001b[K"), "the line is erased at the end");
  });

  it("never writes when stderr is not a terminal", async () => {
    const clock = new VirtualClock();
    const io = capturedIo({}, clock);
    await withProgress(io, "slow", async (progress) => {
      await clock.advanceBy(5_000);
      progress.out("done\n");
    });
    assert.equal(io.stderr, "");
    assert.equal(io.stdout, "done\n");
  });
});
