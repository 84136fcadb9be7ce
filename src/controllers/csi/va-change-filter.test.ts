import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { VolumeAttachment } from "../../api/objects.ts";
import { shouldEnqueueVaChange } from "./va-change-filter.ts";

function attachment(
  resourceVersion: string,
  status: VolumeAttachment["status"],
  finalizers?: string[],
): VolumeAttachment {
  return {
    metadata: { name: "csi-1", resourceVersion, ...(finalizers ? { finalizers } : {}) },
    spec: { attacher: "d", nodeName: "n", source: { persistentVolumeName: "pv" } },
    status,
  };
}

const error = { message: "boom", time: "2026-01-01T00:00:00Z" };

describe("shouldEnqueueVaChange", () => {
  it("ignores an update that only writes an attach or detach error (the attacher's own write)", () => {
    assert.equal(
      shouldEnqueueVaChange(
        attachment("1", { attached: false }),
        attachment("2", { attached: false, attachError: error }),
      ),
      false,
    );
    assert.equal(
      shouldEnqueueVaChange(
        attachment("1", { attached: false, detachError: error }),
        attachment("2", { attached: false }),
      ),
      false,
    );
  });

  it("acts on resyncs, on changes without errors, and on other changes beside an error", () => {
    const failed = attachment("1", { attached: false, attachError: error });
    assert.equal(shouldEnqueueVaChange(failed, failed), true);
    assert.equal(
      shouldEnqueueVaChange(attachment("1", { attached: false }), attachment("2", { attached: true })),
      true,
    );
    assert.equal(shouldEnqueueVaChange(failed, attachment("2", { attached: false, attachError: error }, ["f"])), true);
  });
});
