import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseServerArguments } from "./server-command.ts";

describe("kvol server --leader-elect", () => {
  it("is on by default, as in kube-controller-manager, and takes =true or =false", () => {
    const leaderElect = (argv: string[]) => {
      const parsed = parseServerArguments(argv);
      assert.ok(!("help" in parsed));
      return parsed.leaderElect;
    };
    assert.equal(leaderElect([]), true);
    assert.equal(leaderElect(["--leader-elect"]), true);
    assert.equal(leaderElect(["--leader-elect=false"]), false);
    assert.equal(leaderElect(["--leader-elect=true", "--port", "0"]), true);
    assert.throws(
      () => parseServerArguments(["--leader-elect=maybe"]),
      /^Error: --leader-elect must be true or false, got "maybe"$/,
    );
  });
});
