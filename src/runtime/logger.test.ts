import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatLogLine, Logger, type LogRecord, MemorySink, sensitive } from "./logger.ts";
import { VirtualClock } from "./virtual-clock.ts";

function newLogger(level?: "debug" | "info" | "warn" | "error"): {
  logger: Logger;
  sink: MemorySink;
  clock: VirtualClock;
} {
  const clock = new VirtualClock();
  const sink = new MemorySink();
  return { logger: new Logger({ clock, sink, ...(level ? { level } : {}) }), sink, clock };
}

describe("Logger lines", () => {
  it("prints time from the clock, level, component, message and fields", async () => {
    const { logger, sink, clock } = newLogger();
    const adc = logger.with({ component: "attachdetach-controller" });
    adc.info("attach succeeded", { volume: "pvc-1", node: "node-a", attempt: 2 });
    await clock.advanceBy(1_500);
    adc.with({ pod: "default/web-0" }).warn("multi-attach refused", { reason: "already attached to node-b" });
    assert.deepEqual(sink.lines(), [
      "2026-01-01T00:00:00.000000Z INFO attachdetach-controller attach succeeded volume=pvc-1 node=node-a attempt=2",
      "2026-01-01T00:00:01.500000Z WARN attachdetach-controller multi-attach refused pod=default/web-0 " +
        'reason="already attached to node-b"',
    ]);
  });

  it("omits the component when none is set and keeps a multi-line message on one line", () => {
    const { logger, sink } = newLogger();
    logger.error("mount failed\nexit status 32", { error: new Error("mount.nfs: not found"), empty: "" });
    assert.deepEqual(sink.lines(), [
      '2026-01-01T00:00:00.000000Z ERROR mount failed\\nexit status 32 error="mount.nfs: not found" empty=""',
    ]);
  });

  it("lets child fields override the parent's", () => {
    const { logger, sink } = newLogger();
    logger.with({ node: "a", volume: "v" }).with({ node: "b" }).info("moved");
    assert.deepEqual(sink.records[0]?.fields, [
      ["node", "b"],
      ["volume", "v"],
    ]);
  });

  it("drops records below the configured level", () => {
    const { logger, sink } = newLogger("warn");
    logger.debug("noise");
    logger.info("routine");
    logger.warn("look");
    logger.error("broken");
    assert.deepEqual(
      sink.records.map((record) => record.level),
      ["warn", "error"],
    );
    assert.equal(logger.isEnabled("info"), false);
  });
});

describe("Logger redaction", () => {
  it("masks fields with sensitive names and values marked sensitive", () => {
    const { logger, sink } = newLogger();
    logger.info("publishing", {
      nodePublishSecrets: { user: "admin", key: "hunter2" },
      password: "hunter2",
      authToken: "abc",
      credentials: ["x"],
      mountOptions: sensitive("user=admin,pass=hunter2"),
      target: "/var/lib/kubelet/pods/p/volumes",
    });
    const line = sink.lines()[0] ?? "";
    assert.ok(!line.includes("hunter2") && !line.includes("abc") && !line.includes("admin"), line);
    assert.ok(
      line.endsWith(
        "nodePublishSecrets=<masked> password=<masked> authToken=<masked> credentials=<masked> " +
          "mountOptions=<masked> target=/var/lib/kubelet/pods/p/volumes",
      ),
      line,
    );
  });

  it("masks sensitive keys and wrapped values nested inside objects", () => {
    const { logger, sink } = newLogger();
    logger.info("request", {
      request: { volumeId: "v1", secrets: { a: "s3cr3t" }, context: { token: "t0k" }, extra: sensitive(1) },
    });
    assert.equal(
      sink.lines()[0],
      '2026-01-01T00:00:00.000000Z INFO request request="{\\"volumeId\\":\\"v1\\",\\"secrets\\":\\"<masked>\\",' +
        '\\"context\\":{\\"token\\":\\"<masked>\\"},\\"extra\\":\\"<masked>\\"}"',
    );
  });

  it("masks a sensitive component or message field value too, and survives circular objects", () => {
    const { logger, sink } = newLogger();
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    logger.with({ component: sensitive("x") }).info("odd", { circular });
    const line = sink.lines()[0] ?? "";
    assert.ok(line.startsWith("2026-01-01T00:00:00.000000Z INFO <masked> odd circular="), line);
    assert.match(line, /<unrenderable object: /);
  });
});

describe("MemorySink", () => {
  it("keeps the newest records within its bound and counts the dropped ones", () => {
    const clock = new VirtualClock();
    const sink = new MemorySink(3);
    const logger = new Logger({ clock, sink });
    for (let index = 1; index <= 5; index++) logger.info(`record ${index}`);
    assert.deepEqual(
      sink.records.map((record) => record.message),
      ["record 3", "record 4", "record 5"],
    );
    assert.equal(sink.droppedRecords, 2);
    assert.equal(formatLogLine(sink.records[0] as LogRecord), "2026-01-01T00:00:00.000000Z INFO record 3");
  });
});
