/**
 * How a ReplicaSet creates and deletes its pods (controller.RealPodControl), with the events
 * `kubectl describe rs` shows: `Created pod: web-7d4b9c5f8-x2x9z`, `Deleted pod: ...`, and
 * Warning `FailedCreate` / `FailedDelete` with `Error creating: <why>` / `Error deleting: <why>`.
 */
import type { Client } from "../../api/client/client.ts";
import { isNotFound } from "../../api/errors.ts";
import type { EventRecorder } from "../../api/events/recorder.ts";
import type { Pod, ReplicaSet } from "../../api/objects.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { newControllerRef } from "./controller-ref.ts";
import { podFromTemplate } from "./pod-from-template.ts";

export class ReplicaSetPodControl {
  private readonly client: Client;
  private readonly recorder: EventRecorder;

  constructor(client: Client, recorder: EventRecorder) {
    this.client = client;
    this.recorder = recorder;
  }

  /** Creates one pod from the set's template, named `<set>-<random suffix>` by the API server. */
  async createPod(set: ReplicaSet): Promise<Pod> {
    const template = set.spec?.template;
    if (template === undefined || Object.keys(template.metadata?.labels ?? {}).length === 0) {
      throw new Error(`unable to create pods for ReplicaSet ${set.metadata?.name ?? ""}: the template has no labels`);
    }
    const pod = podFromTemplate(template, set, newControllerRef(set, "apps/v1", "ReplicaSet"));
    try {
      const created = await this.client.pods.create(pod);
      this.recorder.event(set, "Normal", "SuccessfulCreate", `Created pod: ${created.metadata?.name ?? ""}`);
      return created;
    } catch (error) {
      this.recorder.event(set, "Warning", "FailedCreate", `Error creating: ${errorMessage(error)}`);
      throw error;
    }
  }

  /** Deletes a pod gracefully; NotFound (already gone) is returned without an event. */
  async deletePod(set: ReplicaSet, pod: Pod): Promise<void> {
    const name = pod.metadata?.name ?? "";
    try {
      await this.client.pods.delete(pod.metadata?.namespace ?? "", name);
    } catch (error) {
      if (!isNotFound(error))
        this.recorder.event(set, "Warning", "FailedDelete", `Error deleting: ${errorMessage(error)}`);
      throw error;
    }
    this.recorder.event(set, "Normal", "SuccessfulDelete", `Deleted pod: ${name}`);
  }
}
