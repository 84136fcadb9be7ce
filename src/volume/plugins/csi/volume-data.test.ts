import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { simNode } from "../../testing/sim-node.ts";
import { encodeVolumeData, isVolumeDataMissing, loadVolumeData, saveVolumeData } from "./volume-data.ts";

describe("vol_data.json", () => {
  it("is written as Go's json.Encoder writes a map: sorted keys, HTML-safe, one newline", () => {
    assert.equal(
      encodeVolumeData({ volumeHandle: "a<b>&c", driverName: "d" }),
      '{"driverName":"d","volumeHandle":"a\\u003cb\\u003e\\u0026c"}\n',
    );
  });

  it("round-trips through the node's filesystem and tells a missing file from a broken one", async () => {
    const fixture = await simNode();
    await fixture.host.mkdir("/v", 0o750);
    await saveVolumeData(fixture.host, "/v", { driverName: "d", volumeHandle: "h" });
    assert.deepEqual(await loadVolumeData(fixture.host, "/v"), { driverName: "d", volumeHandle: "h" });
    assert.equal((await fixture.host.stat("/v/vol_data.json")).mode, 0o644);

    const missing = await loadVolumeData(fixture.host, "/nowhere").catch((err: unknown) => err);
    assert.ok(isVolumeDataMissing(missing));
    assert.equal(
      (missing as Error).message,
      "kubernetes.io/csi: failed to open volume data file [/nowhere/vol_data.json]: open /nowhere/vol_data.json: no such file or directory",
    );

    await fixture.host.writeFile("/v/vol_data.json", '{"driverName": 7}');
    const broken = await loadVolumeData(fixture.host, "/v").catch((err: unknown) => err);
    assert.ok(!isVolumeDataMissing(broken));
    assert.match(
      (broken as Error).message,
      /failed to parse volume data file \[\/v\/vol_data\.json\]: value of "driverName"/,
    );
  });
});
