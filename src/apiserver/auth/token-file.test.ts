import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatTokenLine, parseTokenFile } from "./token-file.ts";

describe("static token file", () => {
  it("reads kube-apiserver's format: quoted group lists, optional groups, comments and blank lines", () => {
    const text = [
      "# users of the test cluster",
      'abc123,kvol-admin,admin-uid,"system:masters"',
      "",
      'def456,system:node:node-a,node-a-uid,"system:nodes,system:authenticated"',
      "ghi789,alice,alice-uid",
    ].join("\n");
    const entries = parseTokenFile(text, "tokens.csv");
    assert.deepEqual(entries, [
      { token: "abc123", user: { name: "kvol-admin", uid: "admin-uid", groups: ["system:masters"] } },
      {
        token: "def456",
        user: { name: "system:node:node-a", uid: "node-a-uid", groups: ["system:nodes", "system:authenticated"] },
      },
      { token: "ghi789", user: { name: "alice", uid: "alice-uid", groups: [] } },
    ]);
  });

  it("names the file and line of a malformed entry", () => {
    assert.throws(
      () => parseTokenFile("ok,a,b\njust-a-token\n", "tokens.csv"),
      /tokens\.csv line 2: expected token,user,uid/,
    );
    assert.throws(() => parseTokenFile(',user,uid,"g"', "t.csv"), /t\.csv line 1: the token is empty/);
    assert.throws(() => parseTokenFile('t,user,uid,"g1,g2', "t.csv"), /line 1: a quoted field is not closed/);
    assert.throws(() => parseTokenFile("t,a,1\nt,b,2", "t.csv"), /line 2: this token is already used/);
  });

  it("writes lines it reads back unchanged", () => {
    const entry = { token: "tok", user: { name: "system:node:n1", uid: "u1", groups: ["system:nodes", "x"] } };
    const line = formatTokenLine(entry);
    assert.equal(line, 'tok,system:node:n1,u1,"system:nodes,x"');
    assert.deepEqual(parseTokenFile(line, "t.csv"), [entry]);
  });
});
