import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CsiError } from "../../../../csi/grpc/errors.ts";
import { settle } from "../../../testing/sim-node.ts";
import { SimCsiDeployment } from "../connector/sim-csi-deployment.ts";
import { csiPluginFixture } from "../testing/csi-plugin-fixture.ts";
import { testCsiDriverName } from "../testing/test-csi-node-driver.ts";

const registrationSocket = `/var/lib/kubelet/plugins_registry/${testCsiDriverName}-reg.sock`;
const driverSocket = `/var/lib/kubelet/plugins/${testCsiDriverName}/csi.sock`;

describe("CSI driver registration (plugins_registry)", () => {
  it("asks the registrar, then NodeGetInfo, records the driver and writes its node info", async () => {
    const fixture = await csiPluginFixture({
      register: false,
      driver: { nodeId: "i-0abc", maxVolumesPerNode: 8, topology: { "topology.test.csi/zone": "z1" } },
    });
    assert.equal(fixture.deployment.registrar.socketPath, registrationSocket);
    assert.equal((await fixture.host.lstat(registrationSocket)).type, "socket");
    await settle(fixture.clock, fixture.registration.register(registrationSocket));

    assert.deepEqual(fixture.installed.get(testCsiDriverName), {
      driverName: testCsiDriverName,
      nodeId: "i-0abc",
      topology: { "topology.test.csi/zone": "z1" },
      maxVolumesPerNode: 8,
    });
    const registered = fixture.registry.get(testCsiDriverName);
    assert.equal(registered?.endpoint, driverSocket);
    assert.equal(registered?.nodeId, "i-0abc");
    assert.deepEqual(fixture.deployment.registrar.statuses, [{ pluginRegistered: true, error: "" }]);
    assert.deepEqual(
      fixture.calls.map((call) => call.method),
      ["NodeGetInfo"],
      "the kubelet calls no Identity RPC",
    );
    assert.deepEqual(
      fixture.driver.received,
      ["GetPluginInfo", "NodeGetInfo"],
      "GetPluginInfo came from the registrar",
    );
  });

  it("deregisters the driver when its registration socket goes away", async () => {
    const fixture = await csiPluginFixture();
    assert.deepEqual(fixture.registry.names(), [testCsiDriverName]);
    await settle(fixture.clock, fixture.deployment.stop());
    await assert.rejects(fixture.host.lstat(registrationSocket), /no such file or directory/);
    await settle(fixture.clock, fixture.registration.deregister(registrationSocket));
    assert.deepEqual(fixture.registry.names(), []);
    assert.equal(fixture.installed.size, 0);
  });

  it("refuses a driver that speaks no CSI 1.x and tells the registrar why", async () => {
    const fixture = await csiPluginFixture({ register: false });
    await settle(fixture.clock, fixture.deployment.stop());
    const deployment = await settle(
      fixture.clock,
      SimCsiDeployment.start({
        host: fixture.host,
        clock: fixture.clock,
        rootDir: fixture.rootDir,
        driverName: testCsiDriverName,
        implementations: fixture.driver.implementations,
        supportedVersions: ["2.0.0"],
      }),
    );
    await assert.rejects(settle(fixture.clock, fixture.registration.register(registrationSocket)), {
      message: "RegisterPlugin error -- pluginHandler.ValidatePluginFunc failed",
    });
    assert.deepEqual(deployment.registrar.statuses, [
      {
        pluginRegistered: false,
        error:
          `RegisterPlugin error -- plugin validation failed with err: kubernetes.io/csi: ValidatePlugin for CSI driver "${testCsiDriverName}" failed. ` +
          'None of the versions specified ["2.0.0"] are supported. err=could not find a highest supported version from versions ([2.0.0]) reported: <nil>',
      },
    ]);
    assert.deepEqual(fixture.registry.names(), []);
  });

  it("refuses a second registration of the same driver at the same version", async () => {
    const fixture = await csiPluginFixture();
    await assert.rejects(settle(fixture.clock, fixture.registration.register(registrationSocket)), {
      message: "RegisterPlugin error -- pluginHandler.ValidatePluginFunc failed",
    });
    assert.match(
      fixture.deployment.registrar.statuses.at(-1)?.error ?? "",
      /Another driver with the same name is already registered with a higher supported version: "1\.0\.0"$/,
    );
    assert.deepEqual(fixture.registry.names(), [testCsiDriverName], "the first registration stays");
  });

  it("unregisters the driver again when NodeGetInfo fails", async () => {
    const fixture = await csiPluginFixture({ register: false });
    fixture.driver.failNext("NodeGetInfo", new CsiError("Internal", "node metadata service unreachable"));
    await assert.rejects(settle(fixture.clock, fixture.registration.register(registrationSocket)), {
      message:
        "RegisterPlugin error -- plugin registration failed with err: rpc error: code = Internal desc = node metadata service unreachable",
    });
    assert.deepEqual(fixture.registry.names(), []);
    assert.equal(fixture.installed.size, 0);
    assert.equal(fixture.deployment.registrar.statuses[0]?.pluginRegistered, false);

    await settle(fixture.clock, fixture.registration.register(registrationSocket));
    assert.deepEqual(fixture.registry.names(), [testCsiDriverName], "the next attempt registers it");
  });

  it("reports a registrar that died: nobody answers on its stale socket", async () => {
    const fixture = await csiPluginFixture({ register: false });
    fixture.deployment.kill();
    assert.equal((await fixture.host.lstat(registrationSocket)).type, "socket", "the stale socket file stays");
    await assert.rejects(settle(fixture.clock, fixture.registration.register(registrationSocket)), {
      message:
        `RegisterPlugin error -- failed to get plugin info using RPC GetInfo at socket ${registrationSocket}, err: ` +
        `rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial unix ${registrationSocket}: connect: connection refused"`,
    });
  });
});
