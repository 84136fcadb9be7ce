import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runImageCommand } from "./image-command.ts";

function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      stdout: (t: string) => out.push(t),
      stderr: (t: string) => err.push(t),
      stopRequested: () =>
        new Promise<string>(() => {
          // An image command is never asked to stop.
        }),
    },
    out,
    err,
  };
}

describe("kvol image", () => {
  it("imports a root filesystem from a directory and from a tar, with the command it runs, and lists them", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kvol-image-"));
    try {
      const rootfs = join(dir, "rootfs");
      await mkdir(join(rootfs, "app"), { recursive: true });
      await writeFile(join(rootfs, "app/hello.txt"), "hi\n");
      const data = join(dir, "data");
      const fromDir = captureIo();
      assert.equal(
        await runImageCommand(
          ["import", "myapp:1.0", rootfs, "--cmd", "cat /app/hello.txt", "--data-dir", data],
          fromDir.io,
        ),
        0,
      );
      assert.deepEqual(fromDir.out, [`image myapp:1.0 imported into ${join(data, "images")}\n`]);
      const imageDir = join(data, "images", "myapp%3A1.0");
      assert.equal(await readFile(join(imageDir, "rootfs/app/hello.txt"), "utf8"), "hi\n");
      assert.deepEqual(JSON.parse(await readFile(join(imageDir, "config.json"), "utf8")).cmd, [
        "cat",
        "/app/hello.txt",
      ]);

      execFileSync("tar", ["-cf", join(dir, "app.tar"), "-C", rootfs, "."]);
      assert.equal(
        await runImageCommand(
          ["import", "registry.local/team/app", join(dir, "app.tar"), "--data-dir", data],
          captureIo().io,
        ),
        0,
      );
      assert.equal(
        await readFile(join(data, "images", "registry.local%2Fteam%2Fapp%3Alatest", "rootfs/app/hello.txt"), "utf8"),
        "hi\n",
      );

      const list = captureIo();
      assert.equal(await runImageCommand(["list", "--data-dir", data], list.io), 0);
      assert.deepEqual(list.out.join("").split("\n").sort(), ["", "myapp:1.0", "registry.local/team/app:latest"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("says what is wrong with a missing source or a bad command line", async () => {
    const missing = captureIo();
    assert.equal(
      await runImageCommand(
        ["import", "x", "/nonexistent/kvol-rootfs", "--data-dir", "/nonexistent/kvol-data"],
        missing.io,
      ),
      1,
    );
    assert.match(missing.err.join(""), /cannot import x:latest: \/nonexistent\/kvol-rootfs does not exist/);
    const usage = captureIo();
    assert.equal(await runImageCommand(["import", "x"], usage.io), 2);
    assert.match(usage.err.join(""), /expected "import NAME DIR\|TAR" or "list"/);
  });
});
