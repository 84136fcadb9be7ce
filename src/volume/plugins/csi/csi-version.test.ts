import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatCsiVersion, highestSupportedVersion } from "./csi-version.ts";

describe("CSI versions a registering driver offers", () => {
  it("picks the highest 1.x version and skips newer majors", () => {
    assert.equal(formatCsiVersion(highestSupportedVersion(["0.3.0", "1.2.0", "v1.10", "2.0.0"])), "1.10.0");
  });

  it("fails on an empty list and when nothing usable is offered", () => {
    assert.throws(() => highestSupportedVersion([]), { message: "empty array passed as supported versions" });
    assert.throws(() => highestSupportedVersion(["2.0.0", "x"]), {
      message:
        'could not find a highest supported version from versions ([2.0.0 x]) reported: could not parse "x" as version',
    });
  });
});
