import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { DownwardAPIVolumeFile, Pod } from "kubernetes-types/core/v1.js";
import { VolumeSpec } from "../../spec.ts";
import { type SimNodeFixture, settle, simNode } from "../../testing/sim-node.ts";
import { DownwardApiPlugin } from "./downward-api-plugin.ts";

const uid = "u-downward";
const dir = `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~downward-api/podinfo`;
const pod: Pod = {
  metadata: {
    name: "web-0",
    namespace: "shop",
    uid,
    labels: { app: "web", tier: 'front"end' },
    annotations: { "build/commit": "abc123" },
  },
  spec: {
    containers: [
      {
        name: "app",
        image: "busybox",
        resources: { requests: { cpu: "250m", memory: "64Mi" }, limits: { memory: "128Mi" } },
      },
    ],
  },
};

async function setUp(fixture: SimNodeFixture, items: DownwardAPIVolumeFile[]): Promise<void> {
  const plugin = new DownwardApiPlugin();
  plugin.init(fixture.volumeHost);
  const spec = VolumeSpec.fromVolume({ name: "podinfo", downwardAPI: { items } });
  await settle(fixture.clock, plugin.newMounter(spec, pod).setUp({}));
}

async function read(fixture: SimNodeFixture, name: string): Promise<string> {
  return Buffer.from(await fixture.host.readFile(`${dir}/${name}`)).toString();
}

describe("downwardAPI volumes", () => {
  it('writes pod metadata fields, labels formatted as key="value" lines', async () => {
    const fixture = await simNode();
    await setUp(fixture, [
      { path: "name", fieldRef: { fieldPath: "metadata.name" } },
      { path: "namespace", fieldRef: { fieldPath: "metadata.namespace" } },
      { path: "uid", fieldRef: { fieldPath: "metadata.uid" } },
      { path: "labels", fieldRef: { fieldPath: "metadata.labels" } },
      { path: "commit", fieldRef: { fieldPath: "metadata.annotations['build/commit']" } },
    ]);
    assert.equal(await read(fixture, "name"), "web-0");
    assert.equal(await read(fixture, "namespace"), "shop");
    assert.equal(await read(fixture, "uid"), uid);
    assert.equal(await read(fixture, "labels"), 'app="web"\ntier="front\\"end"');
    assert.equal(await read(fixture, "commit"), "abc123");
    assert.equal((await fixture.host.mountInfo()).find((entry) => entry.mountPoint === dir)?.fsType, "tmpfs");
  });

  it("writes container resources divided and rounded up, unset limits from node allocatable", async () => {
    const fixture = await simNode({ allocatable: { cpu: "4", memory: "8Gi" } });
    await setUp(fixture, [
      { path: "cpu_request", resourceFieldRef: { containerName: "app", resource: "requests.cpu", divisor: "1m" } },
      { path: "cpu_request_cores", resourceFieldRef: { containerName: "app", resource: "requests.cpu" } },
      { path: "mem_limit", resourceFieldRef: { containerName: "app", resource: "limits.memory", divisor: "1Mi" } },
      { path: "cpu_limit", resourceFieldRef: { containerName: "app", resource: "limits.cpu" } },
    ]);
    assert.equal(await read(fixture, "cpu_request"), "250");
    assert.equal(await read(fixture, "cpu_request_cores"), "1");
    assert.equal(await read(fixture, "mem_limit"), "128");
    assert.equal(await read(fixture, "cpu_limit"), "4");
  });

  it("reports every bad item together", async () => {
    const fixture = await simNode();
    await assert.rejects(
      setUp(fixture, [
        { path: "ip", fieldRef: { fieldPath: "status.podIP" } },
        { path: "x", resourceFieldRef: { containerName: "sidecar", resource: "limits.cpu" } },
      ]),
      { message: "[unsupported fieldPath: status.podIP, container sidecar not found]" },
    );
  });
});
