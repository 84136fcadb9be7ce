/**
 * Writes `node.status.volumesAttached` from the ASW's report list (spec §2.10). The reconciler
 * removes a volume from the list and writes the node before its detach starts, and the attach
 * operation adds it only once the attach succeeded — so the kubelet never mounts a volume that
 * is being detached. A node missing from the informer is skipped (it cannot be written); a failed
 * write marks the node for another try. A status that already says the right thing — in the
 * informer and in this updater's own last write, so a cache lagging behind a write is never
 * trusted — is not written again.
 */
import type { AttachedVolume, Node } from "kubernetes-types/core/v1.js";
import type { ResourceClient } from "../../../api/client/client.ts";
import { isApiError } from "../../../api/errors.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
import type { Logger } from "../../../runtime/logger.ts";
import type { ActualStateOfWorld } from "../cache/actual-state-of-world.ts";

interface NodeStatusUpdaterOptions {
  /** `client`: only its Node status patch is used. */
  client: { nodes: Pick<ResourceClient<Node>, "patch"> };
  /** The node informer's cache. */
  cachedNode: (name: string) => Node | undefined;
  asw: ActualStateOfWorld;
  logger: Logger;
}

function sameVolumesAttached(
  current: readonly AttachedVolume[] | undefined,
  wanted: readonly AttachedVolume[],
): boolean {
  const have = current ?? [];
  return (
    have.length === wanted.length &&
    have.every((entry, index) => entry.name === wanted[index]?.name && entry.devicePath === wanted[index]?.devicePath)
  );
}

export class NodeStatusUpdater {
  /** node → the `volumesAttached` this updater last wrote. */
  private readonly lastWritten = new Map<string, readonly AttachedVolume[]>();

  constructor(private readonly options: NodeStatusUpdaterOptions) {}

  /** Writes every node whose report changed; resolves false if any write failed. */
  async updateNodeStatuses(): Promise<boolean> {
    let allWritten = true;
    for (const nodeName of this.options.asw.nodesNeedingStatusUpdate()) {
      allWritten = (await this.updateNodeStatusForNode(nodeName)) && allWritten;
    }
    return allWritten;
  }

  /** Writes one node if its report changed; resolves false when the write failed. */
  async updateNodeStatusForNode(nodeName: string): Promise<boolean> {
    const { asw, client, cachedNode, logger } = this.options;
    const volumesAttached = asw.takeVolumesToReportAttached(nodeName);
    if (volumesAttached === undefined) return true;
    const node = cachedNode(nodeName);
    if (node === undefined) {
      logger.debug("Could not update node status. Failed to find node in NodeInformer cache", { node: nodeName });
      return true;
    }
    const written = this.lastWritten.get(nodeName);
    const alreadySays =
      sameVolumesAttached(node.status?.volumesAttached, volumesAttached) &&
      (written === undefined || sameVolumesAttached(written, volumesAttached));
    if (alreadySays) return true;
    try {
      await client.nodes.patch("", nodeName, { status: { volumesAttached } }, { subresource: "status" });
      this.lastWritten.set(nodeName, volumesAttached);
      logger.debug("Updating status for node succeeded", { node: nodeName, attachedVolumes: volumesAttached });
      return true;
    } catch (err) {
      this.lastWritten.delete(nodeName);
      if (isApiError(err, "NotFound")) return true;
      asw.setNodeStatusUpdateNeeded(nodeName);
      logger.warn("Could not update node status; re-marking for update", { node: nodeName, error: errorMessage(err) });
      return false;
    }
  }
}
