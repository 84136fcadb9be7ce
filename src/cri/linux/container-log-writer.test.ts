import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { ContainerLogWriter, formatCriLogTime } from "./container-log-writer.ts";

describe("container log writer", () => {
  it("writes one CRI record per line, stdout and stderr tagged, a last unterminated line as P", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kvol-log-"));
    try {
      const clock = new VirtualClock();
      const writer = new ContainerLogWriter(join(dir, "0.log"), clock);
      const out = new PassThrough();
      const err = new PassThrough();
      writer.attach("stdout", out);
      writer.attach("stderr", err);
      out.write("hello\nwor");
      out.write("ld\n");
      err.write("oops\n");
      out.end("tail");
      err.end();
      await writer.closed;
      const time = formatCriLogTime(clock.now());
      assert.equal(
        await readFile(join(dir, "0.log"), "utf8"),
        `${time} stdout F hello\n${time} stdout F world\n${time} stderr F oops\n${time} stdout P tail\n`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("writes times as RFC 3339 with nanoseconds", () => {
    assert.equal(formatCriLogTime(Date.UTC(2026, 10, 27, 2, 10, 15, 123)), "2026-11-27T02:10:15.123000000Z");
  });
});
