import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { VirtualClock } from "../runtime/virtual-clock.ts";
import { requireOrSkip } from "../testing/requirements.ts";
import { capturedIo } from "./client/testing/cli-test-support.ts";
import { runCompletionCommand } from "./completion-command.ts";

describe("kvol completion", () => {
  it("prints a bash script that completes commands and resource types", async (t) => {
    const io = capturedIo({}, new VirtualClock());
    assert.equal(await runCompletionCommand(["bash"], io), 0);
    assert.match(io.stdout, /complete -o default -F _kvol kvol/);
    const bash = spawnSync("bash", ["--version"]);
    if (!requireOrSkip(t, bash.status === 0 ? undefined : "bash is not installed")) return;
    const script = `${io.stdout}
COMP_WORDS=(kvol ge); COMP_CWORD=1; _kvol; echo "\${COMPREPLY[*]}"
COMP_WORDS=(kvol get persistentvolume); COMP_CWORD=2; _kvol; echo "\${COMPREPLY[*]}"`;
    const run = spawnSync("bash", ["-c", script], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(run.stdout.trim().split("\n"), ["get", "persistentvolumeclaims persistentvolumes"]);
  });

  it("prints a zsh script and refuses other shells with a usage error", async () => {
    const zsh = capturedIo({}, new VirtualClock());
    assert.equal(await runCompletionCommand(["zsh"], zsh), 0);
    assert.match(zsh.stdout, /^#compdef kvol\n/);
    const fish = capturedIo({}, new VirtualClock());
    assert.equal(await runCompletionCommand(["fish"], fish), 2);
    assert.match(fish.stderr, /bash or zsh/);
  });
});
