import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { VolumeSpec } from "../../spec.ts";
import { type SimNodeFixture, settle, simNode } from "../../testing/sim-node.ts";
import { SecretPlugin } from "./secret-plugin.ts";

const uid = "45c55c5e-ce96-47fd-94b3-60a334e5a44d";
const dir = `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~secret/token`;
const pod: Pod = { metadata: { name: "kube-proxy", namespace: "kube-system", uid }, spec: { containers: [] } };

function base64(text: string): string {
  return Buffer.from(text).toString("base64");
}

async function setUpSecret(fixture: SimNodeFixture, source: Record<string, unknown>): Promise<void> {
  const plugin = new SecretPlugin();
  plugin.init(fixture.volumeHost);
  const spec = VolumeSpec.fromVolume({ name: "token", secret: { secretName: "kube-proxy-token", ...source } });
  await settle(fixture.clock, plugin.newMounter(spec, pod).setUp({}));
}

async function read(fixture: SimNodeFixture, name: string): Promise<string> {
  return Buffer.from(await fixture.host.readFile(`${dir}/${name}`)).toString();
}

describe("secret volumes", () => {
  it("writes every key onto a tmpfs with mode 0644", async () => {
    const fixture = await simNode();
    fixture.api.putSecret({
      metadata: { name: "kube-proxy-token", namespace: "kube-system" },
      data: { token: base64("s3cr3t"), "ca.crt": base64("CERT") },
    });
    await setUpSecret(fixture, {});
    assert.equal(await read(fixture, "token"), "s3cr3t");
    assert.equal(await read(fixture, "ca.crt"), "CERT");
    assert.equal((await fixture.host.stat(`${dir}/token`)).mode, 0o644);
    const mount = (await fixture.host.mountInfo()).find((entry) => entry.mountPoint === dir);
    assert.equal(mount?.fsType, "tmpfs", "secret bytes never touch the node's disk");
  });

  it("maps selected keys to paths with their own modes", async () => {
    const fixture = await simNode();
    fixture.api.putSecret({
      metadata: { name: "kube-proxy-token", namespace: "kube-system" },
      data: { token: base64("t"), other: base64("o") },
    });
    await setUpSecret(fixture, { defaultMode: 0o440, items: [{ key: "token", path: "auth/token", mode: 0o400 }] });
    assert.equal(await read(fixture, "auth/token"), "t");
    assert.equal((await fixture.host.stat(`${dir}/auth/token`)).mode, 0o400);
    await assert.rejects(fixture.host.stat(`${dir}/other`), /no such file or directory/);
  });

  it('fails with `secret "<name>" not found` and leaves nothing behind', async () => {
    const fixture = await simNode();
    await assert.rejects(setUpSecret(fixture, {}), { message: 'secret "kube-proxy-token" not found' });
    await assert.rejects(fixture.host.stat(dir), /no such file or directory/);
  });

  it("sets up an empty volume for a missing optional secret", async () => {
    const fixture = await simNode();
    await setUpSecret(fixture, { optional: true });
    assert.deepEqual(
      (await fixture.host.readdir(dir)).filter((name) => !name.startsWith("..")),
      [],
      "an empty payload shows no files",
    );
  });

  it("names a missing key", async () => {
    const fixture = await simNode();
    fixture.api.putSecret({ metadata: { name: "kube-proxy-token", namespace: "kube-system" }, data: {} });
    await assert.rejects(setUpSecret(fixture, { items: [{ key: "token", path: "token" }] }), {
      message: "references non-existent secret key: token",
    });
  });

  it("picks up a changed secret on the next SetUp and unmounts at teardown", async () => {
    const fixture = await simNode();
    const secret = { metadata: { name: "kube-proxy-token", namespace: "kube-system" }, data: { token: base64("old") } };
    fixture.api.putSecret(secret);
    await setUpSecret(fixture, {});
    fixture.api.putSecret({ ...secret, data: { token: base64("new") } });
    await setUpSecret(fixture, {});
    assert.equal(await read(fixture, "token"), "new");

    const plugin = new SecretPlugin();
    plugin.init(fixture.volumeHost);
    assert.equal(plugin.requiresRemount(), true);
    await settle(fixture.clock, plugin.newUnmounter("token", uid).tearDown());
    assert.equal(
      (await fixture.host.mountInfo()).some((entry) => entry.mountPoint === dir),
      false,
    );
    await assert.rejects(fixture.host.stat(dir), /no such file or directory/);
  });
});
