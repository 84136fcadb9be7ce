import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { describe, it } from "node:test";
import { realIoMayBePending } from "./real-io.ts";

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
