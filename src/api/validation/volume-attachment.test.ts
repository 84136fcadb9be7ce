import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { changed, dnsSubdomainMessage, problemsOf } from "./testing/test-support.ts";

type Manifest = { metadata: Record<string, unknown>; spec: Record<string, unknown>; status?: Record<string, unknown> };

const attachment: Manifest = {
  metadata: { name: "csi-4b1a0c9e3f7d2a6b8c0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e" },
  spec: { attacher: "hostpath.csi.k8s.io", nodeName: "node-1", source: { persistentVolumeName: "pvc-6f1c" } },
  status: { attached: true, attachmentMetadata: { devicePath: "/dev/loop3" } },
};

describe("VolumeAttachment", () => {
  it("accepts an attachment of a PersistentVolume", () => {
    assert.deepEqual(problemsOf("VolumeAttachment", attachment), []);
  });

  it("requires an attacher and a node", () => {
    const bare = changed(attachment, (copy) => {
      copy.spec = { source: { persistentVolumeName: "pvc-6f1c" } };
    });
    assert.deepEqual(problemsOf("VolumeAttachment", bare), [
      "spec.attacher: Required value",
      `spec.nodeName: Invalid value: "": ${dnsSubdomainMessage}`,
    ]);
  });

  it("requires exactly one source", () => {
    const none = changed(attachment, (copy) => {
      copy.spec.source = {};
    });
    assert.deepEqual(problemsOf("VolumeAttachment", none), [
      "spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName",
    ]);
    const both = changed(attachment, (copy) => {
      copy.spec.source = {
        persistentVolumeName: "pvc-6f1c",
        inlineVolumeSpec: { accessModes: ["ReadWriteOnce"], csi: { driver: "hostpath.csi.k8s.io", volumeHandle: "h" } },
      };
    });
    assert.deepEqual(problemsOf("VolumeAttachment", both), [
      "spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName",
    ]);
  });

  it("checks an inline volume spec with the inline rules", () => {
    const inline = changed(attachment, (copy) => {
      copy.spec.source = {
        inlineVolumeSpec: {
          accessModes: ["ReadWriteOnce"],
          capacity: { storage: "1Gi" },
          nfs: { server: "s", path: "/e" },
        },
      };
    });
    assert.deepEqual(problemsOf("VolumeAttachment", inline), [
      "spec.source.inlineVolumeSpec.capacity: Forbidden: may not be specified in the context of inline volumes",
      "spec.source.inlineVolumeSpec.csi: Required value: has to be specified in the context of inline volumes",
    ]);
  });

  it("keeps its spec but lets the attacher write status", () => {
    const detached = changed(attachment, (copy) => {
      copy.status = {
        attached: false,
        detachError: { message: "rpc error: code = DeadlineExceeded", time: "2026-01-01T00:00:00Z" },
      };
    });
    assert.deepEqual(problemsOf("VolumeAttachment", detached, attachment), []);
    const moved = changed(attachment, (copy) => {
      copy.spec.nodeName = "node-2";
    });
    const problems = problemsOf("VolumeAttachment", moved, attachment);
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? "", /^spec: Invalid value: \{.*"nodeName":"node-2".*\}: field is immutable$/);
  });
});
