import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { describe, it } from "node:test";
import { requireOrSkip } from "../testing/requirements.ts";
import { realIoMayBePending } from "./real-io.ts";

/**
 * What realIoMayBePending answers in a fresh node whose standard output and error are a terminal
 * (`script` gives the child a pseudo-terminal), after writing to both.
 */
function answerInTerminal(): { answer?: string; missing?: string } {
  const program = [
    `const { realIoMayBePending } = await import(${JSON.stringify(new URL("./real-io.ts", import.meta.url).href)});`,
    'process.stderr.write("");',
    "await new Promise((resolve) => setImmediate(resolve));",
    'process.stdout.write("answer=" + realIoMayBePending() + " terminal=" + process.stdout.isTTY + "\\n");',
  ].join(" ");
  const command = `${process.execPath} --import tsx --input-type=module -e '${program}'`;
  const run = spawnSync("script", ["-qec", command, "/dev/null"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (run.error !== undefined)
    return { missing: `script (util-linux) is needed for a pseudo-terminal: ${run.error.message}` };
  assert.equal(run.status, 0, run.stdout + run.stderr);
  return { answer: /answer=\S+ terminal=\S+/.exec(run.stdout)?.[0] };
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
}

function close(server: Server): Promise<void> {
  return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}

/** One real event-loop turn, so handles closed just before are gone from Node's list. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe("realIoMayBePending", () => {
  it("is false in a purely in-process program, even with standard output and error written to", async () => {
    process.stdout.write("");
    process.stderr.write("");
    await nextTurn();
    assert.equal(realIoMayBePending(), false);
  });

  it("is false when standard output and error are a terminal", (t) => {
    const { answer, missing } = answerInTerminal();
    if (!requireOrSkip(t, missing)) return;
    assert.equal(answer, "answer=false terminal=true");
  });

  it("is true while a server listens, and false once it has closed", async () => {
    const server = createServer();
    await listen(server);
    assert.equal(realIoMayBePending(), true);
    await close(server);
    await nextTurn();
    assert.equal(realIoMayBePending(), false);
  });

  it("is true while a file read is in flight", async () => {
    const read = readFile(new URL(import.meta.url));
    assert.equal(realIoMayBePending(), true);
    await read;
    await nextTurn();
    assert.equal(realIoMayBePending(), false);
  });

  it("is true while a real timer is pending", async () => {
    const timer = setTimeout(() => undefined, 60_000);
    assert.equal(realIoMayBePending(), true);
    clearTimeout(timer);
    await nextTurn();
    assert.equal(realIoMayBePending(), false);
  });
});
