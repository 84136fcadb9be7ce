/**
 * The StatefulSet controller (`pkg/controller/statefulset`): watches StatefulSets and their pods,
 * and for each set runs one pass of `statefulset-sync.ts` whenever the set or one of its pods
 * changes, then writes the set's status. A pod belongs to a set when its controller reference
 * carries the set's uid and its name is `<set>-<ordinal>`; orphans are not adopted.
 */

import type { EventRecorder } from "../../api/events/recorder.ts";
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import type { ControllerRevision, PersistentVolumeClaim, Pod, StatefulSet } from "../../api/objects.ts";
import { splitObjectKey } from "../../api/objects.ts";
import { type Controller, type ControllerContext, recorderFor } from "../controller-context.ts";
import { msPerSecond, statefulSetControllerName, workloadSyncWorkerCount } from "./constants.ts";
import { controlledBy, ensureOwnerIndex } from "./owner-index.ts";
import { syncStatefulSetHistory } from "./statefulset-history.ts";
import { parentAndOrdinal, revisionOfPod } from "./statefulset-identity.ts";
import { StatefulSetPodControl } from "./statefulset-pod-control.ts";
import { statefulSetStatusFrom, writeStatefulSetStatus } from "./statefulset-status.ts";
import { syncStatefulSetPods } from "./statefulset-sync.ts";
import { SyncLoop } from "./sync-loop.ts";
import { enqueueControllerOnEveryChange, enqueueOnEveryChange } from "./workload-events.ts";

export class StatefulSetController implements Controller {
  readonly name = statefulSetControllerName;
  private readonly context: ControllerContext;
  private readonly sets: SharedInformer<StatefulSet>;
  private readonly pods: SharedInformer<Pod>;
  private readonly claims: SharedInformer<PersistentVolumeClaim>;
  private readonly revisions: SharedInformer<ControllerRevision>;
  private readonly recorder: EventRecorder;
  private readonly control: StatefulSetPodControl;
  private readonly loop: SyncLoop;

  constructor(context: ControllerContext) {
    this.context = context;
    this.sets = context.informers.informerFor("StatefulSet");
    this.pods = context.informers.informerFor("Pod");
    this.claims = context.informers.informerFor("PersistentVolumeClaim");
    this.revisions = context.informers.informerFor("ControllerRevision");
    ensureOwnerIndex(this.pods);
    ensureOwnerIndex(this.revisions);
    this.recorder = recorderFor(context, this.name);
    this.control = new StatefulSetPodControl(context.client, this.recorder, this.claims.lister);
    this.loop = new SyncLoop({
      name: this.name,
      context,
      workerCount: workloadSyncWorkerCount,
      sync: (key) => this.sync(key),
      caches: [this.sets, this.pods, this.claims, this.revisions],
    });
  }

  start(): void {
    const queue = this.loop.queue;
    this.loop.start([
      this.sets.addEventHandler(enqueueOnEveryChange(queue)),
      this.pods.addEventHandler(enqueueControllerOnEveryChange(queue, "StatefulSet", this.sets.lister)),
    ]);
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.recorder.flush();
  }

  private async sync(key: string): Promise<void> {
    const { namespace, name } = splitObjectKey(key);
    const set = this.sets.lister.get(namespace, name);
    if (set === undefined) return;
    const uid = set.metadata?.uid ?? "";
    const pods = controlledBy(this.pods, uid).filter((pod) => parentAndOrdinal(pod)?.parent === name);
    const liveRevisions = new Set([
      set.status?.currentRevision ?? "",
      set.status?.updateRevision ?? "",
      ...pods.map((pod) => revisionOfPod(pod) ?? ""),
    ]);
    if (set.metadata?.deletionTimestamp === undefined) {
      await syncStatefulSetHistory(this.context.client, set, controlledBy(this.revisions, uid), liveRevisions);
    }
    const result = await syncStatefulSetPods({
      set,
      pods,
      control: this.control,
      recorder: this.recorder,
      nowMs: this.context.clock.now(),
    });
    const status = statefulSetStatusFrom(set, result.counts);
    await writeStatefulSetStatus(this.context.client, set, status);
    if (result.error !== undefined) throw result.error;
    this.requeueForMinReadySeconds(key, set, status);
  }

  /** A ready pod becomes available minReadySeconds later, with no event to say so: look again then. */
  private requeueForMinReadySeconds(key: string, set: StatefulSet, status: StatefulSet["status"]): void {
    const minReadySeconds = set.spec?.minReadySeconds ?? 0;
    if (minReadySeconds > 0 && status?.readyReplicas !== status?.availableReplicas) {
      this.loop.queue.addAfter(key, minReadySeconds * msPerSecond);
    }
  }
}
