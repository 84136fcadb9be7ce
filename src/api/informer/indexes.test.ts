import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Event, PersistentVolume, Pod, VolumeAttachment } from "../objects.ts";
import {
  eventsByInvolvedObjectUid,
  persistentVolumesByClaim,
  podsByClaim,
  podsByNode,
  volumeAttachmentsByNode,
  volumeAttachmentsByPersistentVolume,
} from "./indexes.ts";

describe("ready-made indexes", () => {
  it("file a pod under its node, and an unscheduled pod under none", () => {
    const scheduled: Pod = { metadata: { name: "a" }, spec: { containers: [], nodeName: "node-1" } };
    assert.deepEqual(podsByNode.indexFunc(scheduled), ["node-1"]);
    assert.deepEqual(podsByNode.indexFunc({ metadata: { name: "b" }, spec: { containers: [] } }), []);
  });

  it("file a pod under every claim it uses, including the claims of generic ephemeral volumes", () => {
    const pod: Pod = {
      metadata: { namespace: "shop", name: "db-0" },
      spec: {
        containers: [],
        volumes: [
          { name: "data", persistentVolumeClaim: { claimName: "data-db-0" } },
          { name: "config", configMap: { name: "db" } },
          { name: "scratch", ephemeral: { volumeClaimTemplate: { spec: {} } } },
        ],
      },
    };
    assert.deepEqual(podsByClaim.indexFunc(pod), ["shop/data-db-0", "shop/db-0-scratch"]);
  });

  it("file a PersistentVolume under its claimRef", () => {
    const pv: PersistentVolume = {
      metadata: { name: "pv-1" },
      spec: { claimRef: { namespace: "shop", name: "data" } },
    };
    assert.deepEqual(persistentVolumesByClaim.indexFunc(pv), ["shop/data"]);
    assert.deepEqual(persistentVolumesByClaim.indexFunc({ metadata: { name: "pv-2" }, spec: {} }), []);
  });

  it("file a VolumeAttachment under its node and its PersistentVolume", () => {
    const attachment: VolumeAttachment = {
      metadata: { name: "csi-123" },
      spec: { attacher: "ebs.csi.aws.com", nodeName: "node-1", source: { persistentVolumeName: "pv-1" } },
    };
    assert.deepEqual(volumeAttachmentsByNode.indexFunc(attachment), ["node-1"]);
    assert.deepEqual(volumeAttachmentsByPersistentVolume.indexFunc(attachment), ["pv-1"]);
  });

  it("file an Event under the uid of the object it is about", () => {
    const event: Event = { metadata: { name: "e" }, involvedObject: { kind: "Pod", name: "a", uid: "uid-1" } };
    assert.deepEqual(eventsByInvolvedObjectUid.indexFunc(event), ["uid-1"]);
  });
});
