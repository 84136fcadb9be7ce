import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { prepareUi } from "./prepare-ui.ts";

function moduleNotFound(name: string): Error {
  return Object.assign(new Error(`Cannot find package '${name}' imported from /app/src/cli/webui/ui-assets.ts`), {
    code: "ERR_MODULE_NOT_FOUND",
  });
}

describe("prepareUi (npm ci's prepare step)", () => {
  it("builds the UI and says nothing when Vite is there", async () => {
    let builds = 0;
    assert.equal(
      await prepareUi(async () => {
        builds++;
      }),
      undefined,
    );
    assert.equal(builds, 1);
  });

  it("lets a production install without Vite succeed, saying the web UI is not built and how to get it", async () => {
    const note = await prepareUi(async () => {
      throw moduleNotFound("vite");
    });
    assert.match(note ?? "", /Vite is not installed .*npm ci --omit=dev.*the web UI is not built/);
    assert.match(note ?? "", /npm run build:ui/);
  });

  it("fails on any other error: a broken build or another missing package is not hidden", async () => {
    await assert.rejects(
      prepareUi(async () => {
        throw new Error("ui/src/app.tsx (3:1): Unexpected token");
      }),
      /Unexpected token/,
    );
    await assert.rejects(
      prepareUi(async () => {
        throw moduleNotFound("preact");
      }),
      /Cannot find package 'preact'/,
    );
  });
});
