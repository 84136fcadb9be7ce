import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CsiError } from "../../../../csi/grpc/errors.ts";
import { settle, simNode } from "../../../testing/sim-node.ts";
import { TestCsiNodeDriver } from "../testing/test-csi-node-driver.ts";
import { SimCsiConnector } from "./sim-csi-connector.ts";
import { listenOnSimHost } from "./sim-socket-table.ts";

const socketPath = "/var/lib/kubelet/plugins/test.csi.kvol.io/csi.sock";
const callTimeoutMs = 120_000;

async function setUp() {
  const fixture = await simNode();
  await fixture.host.mkdir("/var/lib/kubelet/plugins/test.csi.kvol.io", 0o750, { recursive: true });
  const driver = new TestCsiNodeDriver({ host: fixture.host });
  const connector = new SimCsiConnector({ host: fixture.host, clock: fixture.clock, callTimeoutMs });
  return { fixture, driver, client: connector.connectDriver(socketPath) };
}

function dialError(reason: string): string {
  return `rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial unix ${socketPath}: connect: ${reason}"`;
}

describe("CSI sockets on a simulated node", () => {
  it("reaches whoever listens on the socket file, at every call", async () => {
    const { fixture, driver, client } = await setUp();
    await assert.rejects(client.nodeGetInfo({}), { message: dialError("no such file or directory") });

    const first = await listenOnSimHost(fixture.host, socketPath, {
      kind: "csi",
      implementations: driver.implementations,
    });
    assert.equal((await fixture.host.lstat(socketPath)).type, "socket");
    assert.equal((await client.nodeGetInfo({})).nodeId, "node-1");

    first.kill();
    await assert.rejects(client.nodeGetInfo({}), { message: dialError("connection refused") }, "a stale socket file");

    const restarted = new TestCsiNodeDriver({ host: fixture.host, nodeId: "restarted" });
    await listenOnSimHost(fixture.host, socketPath, { kind: "csi", implementations: restarted.implementations });
    assert.equal((await client.nodeGetInfo({})).nodeId, "restarted", "the same client reaches the new process");
  });

  it("answers Unimplemented for a service the endpoint does not serve", async () => {
    const { fixture, driver, client } = await setUp();
    await listenOnSimHost(fixture.host, socketPath, { kind: "csi", implementations: driver.implementations });
    await assert.rejects(client.controllerGetCapabilities({}), {
      message: "rpc error: code = Unimplemented desc = unknown service csi.v1.Controller",
    });
  });

  it("gives up after the call deadline on the node's clock", async () => {
    const { fixture, driver, client } = await setUp();
    await listenOnSimHost(fixture.host, socketPath, { kind: "csi", implementations: driver.implementations });
    driver.hangNext("NodeGetInfo");
    const started = fixture.clock.now();
    await assert.rejects(settle(fixture.clock, client.nodeGetInfo({})), (err: unknown) => {
      assert.ok(err instanceof CsiError);
      assert.equal(err.code, "DeadlineExceeded");
      return true;
    });
    assert.equal(fixture.clock.now() - started, callTimeoutMs);
  });

  it("drops calls in flight when the driver process dies", async () => {
    const { fixture, driver, client } = await setUp();
    const listener = await listenOnSimHost(fixture.host, socketPath, {
      kind: "csi",
      implementations: driver.implementations,
    });
    driver.hangNext("NodeGetInfo");
    const pending = client.nodeGetInfo({});
    await fixture.clock.advanceBy(1_000);
    listener.kill();
    await assert.rejects(pending, { message: "rpc error: code = Unavailable desc = error reading from server: EOF" });
  });

  it("refuses to bind over a file that is not a socket", async () => {
    const { fixture, driver } = await setUp();
    await fixture.host.writeFile(socketPath, "not a socket");
    await assert.rejects(
      listenOnSimHost(fixture.host, socketPath, { kind: "csi", implementations: driver.implementations }),
      { message: `cannot listen on ${socketPath}: a file that is not a socket is in the way; remove it` },
    );
  });
});
