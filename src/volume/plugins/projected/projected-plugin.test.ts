import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod, VolumeProjection } from "kubernetes-types/core/v1.js";
import { VolumeSpec } from "../../spec.ts";
import { type SimNodeFixture, settle, simNode } from "../../testing/sim-node.ts";
import { ProjectedPlugin } from "./projected-plugin.ts";

const uid = "u-projected";
const dir = `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~projected/kube-api-access-x7k2p`;
const pod: Pod = {
  metadata: { name: "web-0", namespace: "shop", uid },
  spec: { serviceAccountName: "web", containers: [{ name: "app", image: "busybox" }] },
};

/** The sources of every pod's kube-api-access volume. */
const kubeApiAccess: VolumeProjection[] = [
  { serviceAccountToken: { path: "token", expirationSeconds: 3607 } },
  { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
  { downwardAPI: { items: [{ path: "namespace", fieldRef: { fieldPath: "metadata.namespace" } }] } },
];

async function setUp(fixture: SimNodeFixture, sources: VolumeProjection[], fsGroup?: number): Promise<void> {
  const plugin = new ProjectedPlugin();
  plugin.init(fixture.volumeHost);
  const spec = VolumeSpec.fromVolume({ name: "kube-api-access-x7k2p", projected: { sources, defaultMode: 0o644 } });
  await settle(fixture.clock, plugin.newMounter(spec, pod).setUp(fsGroup === undefined ? {} : { fsGroup }));
}

async function read(fixture: SimNodeFixture, name: string): Promise<string> {
  return Buffer.from(await fixture.host.readFile(`${dir}/${name}`)).toString();
}

describe("projected volumes", () => {
  it("assembles a kube-api-access volume: token, CA bundle and namespace on a tmpfs", async () => {
    const fixture = await simNode();
    fixture.api.putConfigMap({ metadata: { name: "kube-root-ca.crt", namespace: "shop" }, data: { "ca.crt": "CA" } });
    await setUp(fixture, kubeApiAccess);
    assert.equal(await read(fixture, "token"), "token:shop:web:web-0:");
    assert.equal(await read(fixture, "ca.crt"), "CA");
    assert.equal(await read(fixture, "namespace"), "shop");
    assert.deepEqual(fixture.api.tokenRequests, [
      {
        namespace: "shop",
        serviceAccountName: "web",
        audiences: [],
        expirationSeconds: 3607,
        podName: "web-0",
        podUID: uid,
      },
    ]);
    assert.equal((await fixture.host.mountInfo()).find((entry) => entry.mountPoint === dir)?.fsType, "tmpfs");
  });

  it("makes the token owner-only when the pod asks for group ownership", async () => {
    const fixture = await simNode();
    fixture.api.putConfigMap({ metadata: { name: "kube-root-ca.crt", namespace: "shop" }, data: { "ca.crt": "CA" } });
    await setUp(fixture, kubeApiAccess, 2000);
    assert.equal((await fixture.host.stat(`${dir}/token`)).mode, 0o600);
    assert.equal((await fixture.host.stat(`${dir}/ca.crt`)).mode, 0o644);
  });

  it("reports every missing source at once", async () => {
    const fixture = await simNode();
    await assert.rejects(setUp(fixture, [{ secret: { name: "db" } }, { configMap: { name: "kube-root-ca.crt" } }]), {
      message: '[secret "db" not found, configmap "kube-root-ca.crt" not found]',
    });
  });
});
