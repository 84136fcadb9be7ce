import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { parseTokenFile } from "../../apiserver/auth/token-file.ts";
import { DataDir, plainHttpUrl, readKubeconfig } from "./data-dir.ts";

describe("data directory", () => {
  let dir: string;
  let data: DataDir;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "kvol-data-"));
    data = new DataDir(dir);
    data.create();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("makes the administrator's token once and keeps it across starts", () => {
    const token = data.ensureAdminToken();
    assert.equal(new DataDir(dir).ensureAdminToken(), token);
    const entries = parseTokenFile(readFileSync(data.tokenFile, "utf8"), "tokens.csv");
    assert.deepEqual(
      entries.map((entry) => entry.user.groups),
      [["system:masters"]],
    );
    assert.equal(statSync(data.tokenFile).mode & 0o077, 0, "only its owner may read the token file");
  });

  it("gives each node its own token as system:node:<name>, written to node-tokens/<name>", () => {
    const file = data.ensureNodeToken("node-a");
    const token = readFileSync(file, "utf8").trim();
    assert.equal(readFileSync(data.ensureNodeToken("node-a"), "utf8").trim(), token);
    const entry = parseTokenFile(readFileSync(data.tokenFile, "utf8"), "tokens.csv").find((e) => e.token === token);
    assert.deepEqual(entry?.user, { name: "system:node:node-a", uid: "system:node:node-a", groups: ["system:nodes"] });
    assert.notEqual(readFileSync(data.ensureNodeToken("node-b"), "utf8").trim(), token);
  });

  it("writes a kubeconfig that names the server, its CA and the token", () => {
    const path = data.writeKubeconfig("https://127.0.0.1:6443", "tok", "-----BEGIN CERTIFICATE-----\nx\n");
    assert.deepEqual(readKubeconfig(path), { server: "https://127.0.0.1:6443", token: "tok" });
    assert.match(readFileSync(path, "utf8"), /certificate-authority-data: /);
    assert.equal(plainHttpUrl("https://127.0.0.1:6443"), "http://127.0.0.1:6443");
    assert.throws(
      () => readKubeconfig(join(dir, "missing")),
      /no kubeconfig at .*: start the cluster with `kvol up` first/,
    );
  });

  it("refuses a directory a live process holds, and takes over one a dead process left", () => {
    data.lock();
    const pidFile = data.file("kvol.pid");
    const parent = process.ppid;
    writeFileSync(pidFile, `${parent}\n`);
    assert.throws(() => data.lock(), new RegExp(`in use by kvol process ${parent}`));
    const finished = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
    writeFileSync(pidFile, `${finished.stdout.toString()}\n`);
    data.lock();
    assert.equal(readFileSync(pidFile, "utf8").trim(), String(process.pid));
    data.unlock();
  });
});
