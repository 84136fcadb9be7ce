import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { MockDriver } from "../csi/drivers/mock/mock-driver.ts";
import { unixEndpoint } from "../csi/grpc/endpoint.ts";
import { type CsiServer, serveCsi } from "../csi/grpc/server.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { SocketCsiConnector } from "../volume/plugins/csi/connector/socket-csi-connector.ts";
import { CsiDriverRegistry } from "../volume/plugins/csi/csi-driver-registry.ts";
import { CsiRegistrationHandler } from "../volume/plugins/csi/registration/csi-registration-handler.ts";
import type { CommandIo } from "./command-io.ts";
import { parseNodeDriverRegistrarArguments, runNodeDriverRegistrarCommand } from "./node-driver-registrar-command.ts";
import { waitFor } from "./testing/wait-for.ts";

function captured(): CommandIo & { out: string[]; err: string[]; requestStop: () => void } {
  const out: string[] = [];
  const err: string[] = [];
  let requestStop: () => void = () => undefined;
  const stop = new Promise<string>((resolve) => {
    requestStop = () => resolve("SIGTERM");
  });
  return {
    out,
    err,
    requestStop,
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    stopRequested: () => stop,
  };
}

describe("kvol node-driver-registrar", () => {
  let dir = "";
  let driver: CsiServer | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "kvol-ndr-"));
  });
  afterEach(async () => {
    driver?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  function kubelet(): CsiRegistrationHandler {
    return new CsiRegistrationHandler({
      connector: new SocketCsiConnector({ clock: new RealClock(), callTimeoutMs: 10_000 }),
      drivers: new CsiDriverRegistry(),
      nodeInfo: { installDriver: async () => undefined, uninstallDriver: async () => undefined },
      logger: { info: () => undefined, warning: () => undefined },
    });
  }

  it("registers a driver it learns the name of from its socket; exits 0 on SIGTERM, 1 when refused, without its socket", async () => {
    const csiSocket = join(dir, "csi.sock");
    const mock = new MockDriver({ clock: new RealClock(), nodeId: "node-1" });
    driver = await serveCsi({ endpoint: unixEndpoint(csiSocket), ...mock.implementations() });
    const registry = join(dir, "plugins_registry");
    mkdirSync(registry);
    const args = [
      "--csi-address",
      csiSocket,
      "--kubelet-registration-path",
      csiSocket,
      "--plugin-registration-path",
      registry,
    ];
    const socketPath = join(registry, "mock.csi.kvol.io-reg.sock");

    const first = captured();
    const run = runNodeDriverRegistrarCommand(args, first);
    await waitFor("the registration socket", () => existsSync(socketPath) || undefined, 10_000);
    const theKubelet = kubelet();
    await theKubelet.register(socketPath);
    first.requestStop();
    assert.equal(await run, 0);
    assert.equal(existsSync(socketPath), false, "SIGTERM removes the registration socket");
    assert.match(first.out.join(""), /CSI driver name: "mock\.csi\.kvol\.io"/);

    // The kubelet still has the driver (its socket went, but this kubelet never rescanned): a second
    // registrar for the same driver is refused, and exits 1 as kubernetes-csi's does.
    const second = captured();
    const again = runNodeDriverRegistrarCommand(args, second);
    await waitFor("the registration socket again", () => existsSync(socketPath) || undefined, 10_000);
    await assert.rejects(theKubelet.register(socketPath), /ValidatePluginFunc failed/);
    assert.equal(await again, 1);
    assert.match(
      second.out.join(""),
      /Registration process failed with error: .*Another driver with the same name is already registered/,
    );
    assert.equal(existsSync(socketPath), false);
  });

  it("refuses bad arguments with the usage and status 2", async () => {
    assert.match(
      String((parseNodeDriverRegistrarArguments(["--csi-address", "/x.sock"]) as { error: string }).error),
      /--kubelet-registration-path is required/,
    );
    assert.deepEqual(
      parseNodeDriverRegistrarArguments([
        "--csi-address=/a.sock",
        "--kubelet-registration-path=/b.sock",
        "--timeout=2s",
      ]),
      {
        csiAddress: "/a.sock",
        kubeletRegistrationPath: "/b.sock",
        registrationDir: "/var/lib/kubelet/plugins_registry",
        timeoutMs: 2_000,
      },
    );
    const io = captured();
    assert.equal(
      await runNodeDriverRegistrarCommand(
        ["--csi-address", "/a.sock", "--kubelet-registration-path", "/b.sock", "--timeout", "soon"],
        io,
      ),
      2,
    );
    assert.match(io.err.join(""), /--timeout must be a duration like 1s or 500ms, got "soon"/);
    assert.match(io.err.join(""), /Usage:/);
  });
});
