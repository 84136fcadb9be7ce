import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { parseTokenFile } from "../../apiserver/auth/token-file.ts";
import { RealClock } from "../../runtime/real-clock.ts";
import { loadClusterAccess } from "../client/kubeconfig.ts";
import { waitFor } from "../testing/wait-for.ts";
import { DataDir, isZombie } from "./data-dir.ts";

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
    const access = loadClusterAccess({ kubeconfig: path, env: {} });
    assert.equal(access.server, "https://127.0.0.1:6443");
    assert.equal(access.token, "tok");
    assert.equal(access.caPem, "-----BEGIN CERTIFICATE-----\nx\n");
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

  it("takes over a pid file whose process is a zombie not yet reaped (right after kill -9)", async () => {
    // `sleep 0 &` exits at once; its parent becomes `sleep 60`, which never reaps it (killed below).
    const parent = spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 60"], { stdio: ["ignore", "pipe", "ignore"] });
    try {
      const zombie = await new Promise<number>((resolve) =>
        parent.stdout.once("data", (b: Buffer) => resolve(Number(b.toString()))),
      );
      await waitFor("the child to become a zombie", () => isZombie(zombie), 30_000);
      writeFileSync(data.file("kvol.pid"), `${zombie}\n`);
      data.lock();
      assert.equal(readFileSync(data.file("kvol.pid"), "utf8").trim(), String(process.pid));
      data.unlock();
    } finally {
      parent.kill("SIGKILL");
    }
  });

  it("takes over a pid file whose pid now belongs to a process started after it was written", async () => {
    const pidFile = data.file("kvol.pid");
    const other = spawn("sleep", ["5"], { stdio: "ignore" });
    try {
      writeFileSync(pidFile, `${other.pid}\n`);
      // Written an hour before that process started: the pid was reused (a reboot, a wrap-around).
      const hourAgo = (new RealClock().now() - 3_600_000) / 1000;
      utimesSync(pidFile, hourAgo, hourAgo);
      data.lock();
      assert.equal(readFileSync(pidFile, "utf8").trim(), String(process.pid));
      data.unlock();
      // Written after it started: that process holds the directory.
      writeFileSync(pidFile, `${other.pid}\n`);
      assert.throws(() => data.lock(), new RegExp(`in use by kvol process ${other.pid}`));
    } finally {
      other.kill("SIGKILL");
    }
  });

  it("makes a pre-created directory owner-only, with every file in it, and creates private files", () => {
    const shared = join(dir, "shared");
    mkdirSync(join(shared, "node-tokens"), { recursive: true, mode: 0o755 });
    chmodSync(shared, 0o755);
    writeFileSync(join(shared, "kvol.db"), "", { mode: 0o644 });
    writeFileSync(join(shared, "kubeconfig"), "", { mode: 0o644 });
    writeFileSync(join(shared, "node-tokens", "node-1"), "t\n", { mode: 0o644 });
    writeFileSync(join(shared, "notes.txt"), "the user's own\n", { mode: 0o644 });
    const taken = new DataDir(shared);
    taken.create();
    assert.equal(statSync(shared).mode & 0o777, 0o700);
    for (const file of ["kvol.db", "kubeconfig", "node-tokens/node-1"]) {
      assert.equal(statSync(join(shared, file)).mode & 0o777, 0o600, file);
    }
    taken.writeKubeconfig("https://127.0.0.1:6443", "tok", "pem");
    taken.writeCa({ certificatePem: "pem", privateKeyPem: "key" });
    assert.equal(statSync(join(shared, "notes.txt")).mode & 0o777, 0o644, "a file not kvol's is left alone");
    assert.equal(statSync(join(shared, "ca.crt")).mode & 0o777, 0o600);
    assert.equal(statSync(join(shared, "ca.key")).mode & 0o777, 0o600);
    assert.equal(statSync(taken.privateFile("new.db")).mode & 0o777, 0o600);
    taken.lock();
    assert.equal(statSync(join(shared, "kvol.pid")).mode & 0o777, 0o600);
    taken.unlock();
  });

  it("keeps the cluster clock's time across a stop, so a run at --speed resumes where its clock was", () => {
    assert.equal(data.savedClockMs(), undefined);
    data.saveClock(1_795_751_284_518);
    assert.equal(new DataDir(dir).savedClockMs(), 1_795_751_284_518);
    writeFileSync(data.file("clock"), "garbage\n");
    assert.equal(data.savedClockMs(), undefined, "an unreadable clock file is ignored: the wall clock is used");
  });
});
