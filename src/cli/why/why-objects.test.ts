/**
 * `kvol why` on a node, a pv and a volumeattachment: the dead node with what is stuck on it, the pv
 * with where it is attached, and the attachment the attach/detach controller waits to detach.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { whyReport } from "../why-command.ts";
import type { WhyKind } from "./explain.ts";
import { atScenarioTime } from "./testing/scenario-api.ts";
import { reportText } from "./why-report.ts";

const minuteMs = 60_000;

function assertLines(text: string, expected: readonly (string | RegExp)[]): void {
  for (const line of expected) {
    if (typeof line === "string") assert.ok(text.includes(line), `expected ${JSON.stringify(line)} in:\n${text}`);
    else assert.match(text, line);
  }
}

describe("kvol why on nodes, pvs and volumeattachments", () => {
  it("seed 004: why node/node-a says NotReady, with the volume attached there and the pod stuck on it", async () => {
    const text = await atScenarioTime("004-rbd-node-shutdown-rwx.yaml", 8 * minuteMs, async (api, cluster) => {
      const { report, nowMs } = await whyReport(api, "Node", "", "node-a", cluster.clock.now());
      return reportText(report, nowMs);
    });
    assertLines(text, [
      /^node node-a: NotReady \(Ready=Unknown\) \(for 6m\d+s\)/,
      "condition Ready NodeStatusUnknown: Kubelet stopped posting node status.",
      "volumes attached: kubernetes.io/rbd/sock_shop:user-pv; in use: kubernetes.io/rbd/sock_shop:user-pv",
      /└─ pod sock-shop\/user-db-\S+: Terminating: the node cannot confirm it stopped/,
      "kubectl taint nodes node-a node.kubernetes.io/out-of-service=nodeshutdown:NoExecute",
    ]);
  });

  // Seed 018: node-a lost power at 1m, db-0 was force-deleted at 9m; at 12m the disk is still
  // attached to node-a, and the controller force-detaches it at 15m.
  async function at018(kind: WhyKind, pick: "pv" | "attachment"): Promise<string> {
    return atScenarioTime("018-csi-disk-force-detach-dead-node.yaml", 12 * minuteMs, async (api, cluster) => {
      const [attachment] = await cluster.list("VolumeAttachment", {});
      assert.ok(attachment?.metadata?.name, "no VolumeAttachment");
      const name = pick === "pv" ? (attachment.spec?.source?.persistentVolumeName ?? "") : attachment.metadata.name;
      const { report, nowMs } = await whyReport(api, kind, "", name, cluster.clock.now());
      return reportText(report, nowMs);
    });
  }

  it("seed 018: why pv/… says Bound and attached to node-a, down to the Multi-Attach of the new pod", async () => {
    const text = await at018("PersistentVolume", "pv");
    assertLines(text, [
      /^pv pvc-\S+: Bound to claim default\/data-db-0/,
      /attached to node node-a \(volumeattachment csi-[0-9a-f]{64}\)/,
      "not attached to node node-b: Multi-Attach, the volume is attached to node node-a",
      "force-detaches the volume from node-a at 00:15:00 (in 3m)",
    ]);
  });

  it("seed 018: why volumeattachment/… says attached to node-a, waiting to detach, force detach at 15m", async () => {
    const text = await at018("VolumeAttachment", "attachment");
    assertLines(text, [
      /^volumeattachment csi-[0-9a-f]{64}: attached \(disk\.csi\.kvol\.io, pv pvc-\S+ on node node-a\)/,
      "attach/detach controller: waiting to detach it from node node-a: wanted by no pod since 2026-01-01T00:09:00Z, still in use by the node; force detach due at 2026-01-01T00:15:00Z",
    ]);
  });
});

describe("kvol why prints each event once", () => {
  it("seed 004: the Multi-Attach event appears once, not under both the pod and the pv", async () => {
    const text = await atScenarioTime("004-rbd-node-shutdown-rwx.yaml", 8 * minuteMs, async (api, cluster) => {
      const pods = await cluster.list("Pod", { namespace: "sock-shop" });
      const pod = pods.find((p) => p.metadata?.name?.startsWith("user-db-") && !p.metadata.deletionTimestamp);
      const { report, nowMs } = await whyReport(
        api,
        "Pod",
        "sock-shop",
        pod?.metadata?.name ?? "",
        cluster.clock.now(),
      );
      return reportText(report, nowMs);
    });
    assert.equal(text.split("Multi-Attach error for volume").length - 1, 1, text);
  });
});
