/**
 * Node registration and the node status loop (kubelet_node_status.go registerWithAPIServer,
 * syncNodeStatus, tryUpdateNodeStatus).
 *
 * Every `nodeStatusUpdateFrequencyMs` (+ up to 4% jitter) the kubelet recomputes its status and
 * writes it when it changed, or when `nodeStatusReportFrequencyMs` passed since the last write.
 * `status.volumesInUse` is set from the volume manager only once it has synced its states
 * (reconstruction after a restart finished); before that the stored value is left as it was, so
 * the attach/detach controller does not detach volumes a restarting kubelet still has mounted.
 * After each pass the volumes in the (written or unchanged) status are marked as reported in use,
 * which is what lets the volume manager mount attachable volumes (spec §3.9).
 */
import type { Node, NodeStatus } from "kubernetes-types/core/v1.js";
import type { Client } from "../../api/client/client.ts";
import { clone } from "../../api/client/copy.ts";
import { isAlreadyExists } from "../../api/errors.ts";
import type { EventRecorder } from "../../api/events/recorder.ts";
import type { Clock, Timer } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { Rng } from "../../runtime/rng.ts";
import {
  nodeRegistrationRetryInitialMs,
  nodeRegistrationRetryMaxMs,
  nodeStatusReportFrequencyMs,
  nodeStatusUpdateJitterFactor,
  nodeStatusUpdateRetries,
} from "../constants.ts";
import { eventReason, nodeStatusMessage } from "../events.ts";
import { retryUntilStopped } from "../retry-until-stopped.ts";
import type { VolumeManager } from "../volumemanager/volume-manager.ts";
import {
  initialNode,
  type NodeIdentity,
  nodeStatusHasChanged,
  reconcileExistingNode,
  setNodeStatus,
} from "./node-status-setters.ts";

/** The part of the volume manager the node status needs. */
export type VolumesInUseReporter = Pick<
  VolumeManager,
  "getVolumesInUse" | "statesHaveBeenSynced" | "markVolumesAsReportedInUse"
>;

interface NodeStatusReporterOptions {
  client: Client;
  clock: Clock;
  rng: Rng;
  logger: Logger;
  recorder: EventRecorder;
  identity: NodeIdentity;
  volumes: VolumesInUseReporter;
  nodeStatusUpdateFrequencyMs: number;
}

function readyStatus(status: NodeStatus | undefined): string | undefined {
  return status?.conditions?.find((condition) => condition.type === "Ready")?.status;
}

export class NodeStatusReporter {
  private readonly options: NodeStatusReporterOptions;
  private timer: Timer | undefined;
  private stopped = false;
  /** When the status was last written; undefined before the first write of this kubelet. */
  private lastReportMs: number | undefined;

  constructor(options: NodeStatusReporterOptions) {
    this.options = options;
  }

  /** Creates the Node (or reconciles the existing one), retrying until it succeeds or the kubelet stops. */
  async register(): Promise<Node | undefined> {
    const { clock, logger } = this.options;
    return retryUntilStopped(
      {
        clock,
        initialMs: nodeRegistrationRetryInitialMs,
        maxMs: nodeRegistrationRetryMaxMs,
        keepTrying: () => !this.stopped,
        onFailure: (error, retryInMs) => logger.error("Unable to register node with API server", { error, retryInMs }),
      },
      () => this.tryRegister(),
    );
  }

  /** Starts the periodic status updates (the first one at once). */
  start(): void {
    this.scheduleSync(0);
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** One syncNodeStatus pass: up to nodeStatusUpdateRetries attempts. */
  async syncNodeStatus(): Promise<void> {
    for (let attempt = 1; attempt <= nodeStatusUpdateRetries && !this.stopped; attempt++) {
      try {
        await this.tryUpdateNodeStatus();
        return;
      } catch (error) {
        this.options.logger.error("Error updating node status, will retry", { error, attempt });
      }
    }
  }

  private async tryRegister(): Promise<Node> {
    const { client, clock, identity, logger, recorder } = this.options;
    const wanted = initialNode(identity, clock.now());
    try {
      const created = await client.nodes.create(wanted);
      this.lastReportMs = clock.now();
      logger.info("Successfully registered node", { node: identity.nodeName });
      recorder.eventForReference(
        this.nodeReference(),
        "Normal",
        eventReason.nodeReady,
        nodeStatusMessage(identity.nodeName, "NodeReady"),
      );
      return created;
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
    const existing = await client.nodes.get("", identity.nodeName);
    const reconciled = reconcileExistingNode(existing, identity);
    logger.info("Node was previously registered", { node: identity.nodeName });
    return reconciled === undefined ? existing : client.nodes.update(reconciled);
  }

  private scheduleSync(delayMs: number): void {
    if (this.stopped) return;
    this.timer = this.options.clock.setTimer(delayMs, () => {
      this.timer = undefined;
      void this.syncNodeStatus().finally(() => {
        const { nodeStatusUpdateFrequencyMs, rng } = this.options;
        this.scheduleSync(nodeStatusUpdateFrequencyMs * (1 + rng.next() * nodeStatusUpdateJitterFactor));
      });
    });
  }

  private async tryUpdateNodeStatus(): Promise<void> {
    const { client, clock, identity, volumes } = this.options;
    const original = await client.nodes.get("", identity.nodeName);
    const nowMs = clock.now();
    const status = setNodeStatus(original.status, identity, nowMs);
    if (volumes.statesHaveBeenSynced()) {
      const inUse = volumes.getVolumesInUse();
      if (inUse.length > 0) status.volumesInUse = inUse;
      else delete status.volumesInUse;
    }
    const due = this.lastReportMs === undefined || nowMs - this.lastReportMs >= nodeStatusReportFrequencyMs;
    if (!due && !nodeStatusHasChanged(original.status, status)) {
      // A restarted kubelet's desired state starts with nothing reported in use, while the Node
      // still lists what the previous instance reported: sync that list even without a write.
      volumes.markVolumesAsReportedInUse(status.volumesInUse ?? []);
      return;
    }
    const node = clone(original);
    node.status = status;
    const updated = await client.nodes.updateStatus(node);
    this.lastReportMs = nowMs;
    volumes.markVolumesAsReportedInUse(updated.status?.volumesInUse ?? []);
    if (readyStatus(original.status) !== "True" && readyStatus(updated.status) === "True") {
      this.options.recorder.eventForReference(
        this.nodeReference(),
        "Normal",
        eventReason.nodeReady,
        nodeStatusMessage(identity.nodeName, "NodeReady"),
      );
    }
  }

  /** Kubelet's nodeRef: events about the node carry its name as uid, as Kubernetes does. */
  nodeReference(): { kind: string; name: string; uid: string } {
    const name = this.options.identity.nodeName;
    return { kind: "Node", name, uid: name };
  }
}
