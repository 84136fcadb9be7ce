import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ConfigMap, Pod } from "kubernetes-types/core/v1.js";
import { VolumeSpec } from "../../spec.ts";
import { type SimNodeFixture, settle, simNode } from "../../testing/sim-node.ts";
import { ConfigMapPlugin } from "./config-map-plugin.ts";

const uid = "u-config";
const dir = `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~configmap/config`;
const pod: Pod = { metadata: { name: "web", namespace: "default", uid }, spec: { containers: [] } };

function configMap(data: Record<string, string>, binaryData: Record<string, string> = {}): ConfigMap {
  return { metadata: { name: "web-config", namespace: "default" }, data, binaryData };
}

async function setUp(fixture: SimNodeFixture, source: Record<string, unknown> = {}): Promise<void> {
  const plugin = new ConfigMapPlugin();
  plugin.init(fixture.volumeHost);
  const spec = VolumeSpec.fromVolume({ name: "config", configMap: { name: "web-config", ...source } });
  await settle(fixture.clock, plugin.newMounter(spec, pod).setUp({}));
}

async function read(fixture: SimNodeFixture, name: string): Promise<string> {
  return Buffer.from(await fixture.host.readFile(`${dir}/${name}`)).toString();
}

describe("configMap volumes", () => {
  it("writes text and binary keys on the node's disk, nothing mounted", async () => {
    const fixture = await simNode();
    fixture.api.putConfigMap(
      configMap({ "nginx.conf": "worker_processes 1;" }, { "logo.bin": Buffer.from([1, 2]).toString("base64") }),
    );
    await setUp(fixture);
    assert.equal(await read(fixture, "nginx.conf"), "worker_processes 1;");
    assert.deepEqual([...(await fixture.host.readFile(`${dir}/logo.bin`))], [1, 2]);
    assert.equal(
      (await fixture.host.mountInfo()).some((entry) => entry.mountPoint === dir),
      false,
    );
    assert.deepEqual(fixture.commands, []);
  });

  it('fails with `configmap "<name>" not found` unless optional', async () => {
    const fixture = await simNode();
    await assert.rejects(setUp(fixture), { message: 'configmap "web-config" not found' });
    await setUp(fixture, { optional: true });
    assert.deepEqual(
      (await fixture.host.readdir(dir)).filter((name) => !name.startsWith("..")),
      [],
      "an empty payload shows no files",
    );
  });

  it("names a missing key of a required item", async () => {
    const fixture = await simNode();
    fixture.api.putConfigMap(configMap({}));
    await assert.rejects(setUp(fixture, { items: [{ key: "app.yaml", path: "app.yaml" }] }), {
      message: "configmap references non-existent config key: app.yaml",
    });
  });

  it("makes an update visible all at once: every file old, then every file new", async () => {
    const fixture = await simNode();
    fixture.api.putConfigMap(configMap({ a: "v1", b: "v1", c: "v1" }));
    await setUp(fixture);
    const oldDir = await fixture.host.readlink(`${dir}/..data`);
    fixture.api.putConfigMap(configMap({ a: "v2", b: "v2" }));
    await fixture.clock.advanceBy(60_000);
    await setUp(fixture);
    assert.deepEqual([await read(fixture, "a"), await read(fixture, "b")], ["v2", "v2"]);
    assert.notEqual(await fixture.host.readlink(`${dir}/..data`), oldDir);
    await assert.rejects(fixture.host.lstat(`${dir}/c`), /no such file or directory/, "a removed key disappears");
    await assert.rejects(
      fixture.host.lstat(`${dir}/${oldDir}`),
      /no such file or directory/,
      "the old version is deleted",
    );
  });

  it("tears down by deleting the directory", async () => {
    const fixture = await simNode();
    fixture.api.putConfigMap(configMap({ a: "1" }));
    await setUp(fixture);
    const plugin = new ConfigMapPlugin();
    plugin.init(fixture.volumeHost);
    await settle(fixture.clock, plugin.newUnmounter("config", uid).tearDown());
    await assert.rejects(fixture.host.stat(dir), /no such file or directory/);
  });
});
