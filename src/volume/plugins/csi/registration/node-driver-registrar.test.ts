import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { RealClock } from "../../../../runtime/real-clock.ts";
import { NodeDriverRegistrar } from "./node-driver-registrar.ts";
import { connectRegistrationSocket } from "./registration-socket.ts";

const callTimeoutMs = 10_000;

describe("node-driver-registrar on a real socket", () => {
  let dir = "";
  const lines: string[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "kvol-registrar-"));
    lines.length = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function start(): Promise<NodeDriverRegistrar> {
    return NodeDriverRegistrar.start({
      driverName: "example.csi.vendor.io",
      kubeletRegistrationPath: "/var/lib/kubelet/plugins/example.csi.vendor.io/csi.sock",
      registrationDir: dir,
      log: (line) => lines.push(line),
    });
  }

  it("tells the kubelet the driver's name, CSI socket and versions on <dir>/<driver>-reg.sock, private to root", async () => {
    const registrar = await start();
    const socketPath = join(dir, "example.csi.vendor.io-reg.sock");
    assert.equal(registrar.socketPath, socketPath);
    const stats = statSync(socketPath);
    assert.ok(stats.isSocket());
    assert.equal(stats.mode & 0o777, 0o600);
    const kubelet = connectRegistrationSocket({ socketPath, clock: new RealClock() });
    try {
      assert.deepEqual(await kubelet.getInfo(callTimeoutMs), {
        type: "CSIPlugin",
        name: "example.csi.vendor.io",
        endpoint: "/var/lib/kubelet/plugins/example.csi.vendor.io/csi.sock",
        supportedVersions: ["1.0.0"],
      });
      await kubelet.notifyRegistrationStatus({ pluginRegistered: true, error: "" }, callTimeoutMs);
      await registrar.registered;
    } finally {
      kubelet.close();
    }
    assert.ok(lines.includes("Received GetInfo call: &InfoRequest{}"), lines.join("\n"));
    assert.ok(
      lines.includes("Received NotifyRegistrationStatus call: &RegistrationStatus{PluginRegistered:true,Error:,}"),
    );
    await registrar.stop();
    assert.throws(() => statSync(socketPath), /ENOENT/, "the socket is removed at stop");
  });

  it("logs the kubelet's refusal and reports it, so the process can exit non-zero", async () => {
    const registrar = await start();
    const kubelet = connectRegistrationSocket({ socketPath: registrar.socketPath, clock: new RealClock() });
    const reason =
      'RegisterPlugin error -- plugin validation failed with err: kubernetes.io/csi: ValidatePlugin for CSI driver "example.csi.vendor.io" failed. Plugin returned an empty list for supported versions';
    try {
      await kubelet.notifyRegistrationStatus({ pluginRegistered: false, error: reason }, callTimeoutMs);
    } finally {
      kubelet.close();
    }
    assert.equal(await registrar.refused, reason);
    assert.ok(
      lines.includes(`Registration process failed with error: ${reason}, restarting registration container.`),
      lines.join("\n"),
    );
    await registrar.stop();
  });

  it("replaces a socket an earlier registrar left behind, and never deletes another kind of file", async () => {
    const first = await start();
    // A killed registrar leaves its socket file: the next one binds anyway.
    const second = await start();
    assert.ok(statSync(second.socketPath).isSocket());
    await second.stop();
    await first.stop();
    writeFileSync(join(dir, "example.csi.vendor.io-reg.sock"), "not a socket");
    await assert.rejects(start(), /example\.csi\.vendor\.io-reg\.sock exists and is not a socket/);
  });
});
