/**
 * The ReplicaSet controller (`pkg/controller/replicaset`): keeps `spec.replicas` active pods for
 * every ReplicaSet. A pod belongs to a set when its controller reference carries the set's uid and
 * its labels match the set's selector; orphans are not adopted and non-matching pods not released.
 *
 * A pod that starts terminating is replaced at once (it no longer counts as active), which is how
 * a Deployment's replacement pod comes to wait on a volume still attached to a dead node.
 */
import type { EventRecorder } from "../../api/events/recorder.ts";
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import type { Pod, ReplicaSet } from "../../api/objects.ts";
import { objectKey, splitObjectKey } from "../../api/objects.ts";
import { labelMatcherFromSelector } from "../../api/selectors/labels.ts";
import { type Controller, type ControllerContext, recorderFor } from "../controller-context.ts";
import { msPerSecond, replicaSetControllerName, workloadSyncWorkerCount } from "./constants.ts";
import { controllerKeyOf } from "./controller-ref.ts";
import { ControllerExpectations } from "./expectations.ts";
import { controlledBy, ensureOwnerIndex } from "./owner-index.ts";
import { isPodActive, isPodReady, isPodTerminating } from "./pod-state.ts";
import { ReplicaSetPodControl } from "./replicaset-pod-control.ts";
import { manageReplicas } from "./replicaset-replicas.ts";
import { replicaSetStatusFrom, writeReplicaSetStatus } from "./replicaset-status.ts";
import { SyncLoop } from "./sync-loop.ts";

export class ReplicaSetController implements Controller {
  readonly name = replicaSetControllerName;
  private readonly context: ControllerContext;
  private readonly sets: SharedInformer<ReplicaSet>;
  private readonly pods: SharedInformer<Pod>;
  private readonly recorder: EventRecorder;
  private readonly control: ReplicaSetPodControl;
  private readonly expectations: ControllerExpectations;
  private readonly loop: SyncLoop;

  constructor(context: ControllerContext) {
    this.context = context;
    this.sets = context.informers.informerFor("ReplicaSet");
    this.pods = context.informers.informerFor("Pod");
    ensureOwnerIndex(this.pods);
    this.recorder = recorderFor(context, this.name);
    this.control = new ReplicaSetPodControl(context.client, this.recorder);
    this.expectations = new ControllerExpectations(context.clock);
    this.loop = new SyncLoop({
      name: this.name,
      context,
      workerCount: workloadSyncWorkerCount,
      sync: (key) => this.sync(key),
      caches: [this.sets, this.pods],
    });
  }

  start(): void {
    const enqueue = (set: ReplicaSet) => this.loop.queue.add(objectKey(set));
    this.loop.start([
      this.sets.addEventHandler({
        onAdd: enqueue,
        onUpdate: (_old, set) => enqueue(set),
        onDelete: (set) => {
          this.expectations.delete(objectKey(set));
          enqueue(set);
        },
      }),
      this.pods.addEventHandler({
        onAdd: (pod) => this.podAdded(pod),
        onUpdate: (oldPod, newPod) => this.podUpdated(oldPod, newPod),
        onDelete: (pod) => this.podGone(pod),
      }),
    ]);
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.recorder.flush();
  }

  private ownerKey(pod: Pod): string | undefined {
    return controllerKeyOf(pod, "ReplicaSet", this.sets.lister);
  }

  private podAdded(pod: Pod): void {
    if (isPodTerminating(pod)) {
      this.podGone(pod);
      return;
    }
    const key = this.ownerKey(pod);
    if (key === undefined) return;
    this.expectations.creationObserved(key);
    this.loop.queue.add(key);
  }

  private podUpdated(oldPod: Pod, newPod: Pod): void {
    if (oldPod.metadata?.resourceVersion === newPod.metadata?.resourceVersion) return;
    // The set wants a replacement as soon as the deletion starts, not once the kubelet is done.
    if (isPodTerminating(newPod)) {
      this.podGone(newPod);
      return;
    }
    const oldKey = this.ownerKey(oldPod);
    const newKey = this.ownerKey(newPod);
    if (oldKey !== undefined && oldKey !== newKey) this.loop.queue.add(oldKey);
    if (newKey === undefined) return;
    this.loop.queue.add(newKey);
    this.requeueWhenAvailable(oldPod, newPod, newKey);
  }

  /** A pod just became Ready; with minReadySeconds it becomes available later, with no event. */
  private requeueWhenAvailable(oldPod: Pod, newPod: Pod, key: string): void {
    if (isPodReady(oldPod) || !isPodReady(newPod)) return;
    const { namespace, name } = splitObjectKey(key);
    const minReadySeconds = this.sets.lister.get(namespace, name)?.spec?.minReadySeconds ?? 0;
    if (minReadySeconds > 0) this.loop.queue.addAfter(key, (minReadySeconds + 1) * msPerSecond);
  }

  private podGone(pod: Pod): void {
    const key = this.ownerKey(pod);
    if (key === undefined) return;
    this.expectations.deletionObserved(key, objectKey(pod));
    this.loop.queue.add(key);
  }

  private async sync(key: string): Promise<void> {
    const { namespace, name } = splitObjectKey(key);
    const set = this.sets.lister.get(namespace, name);
    if (set === undefined) {
      this.expectations.delete(key);
      return;
    }
    // Read before acting: expectations set by this sync must not count as met by it.
    const mayAct = this.expectations.satisfied(key) && set.metadata?.deletionTimestamp === undefined;
    const selector = labelMatcherFromSelector(set.spec?.selector);
    const activePods = controlledBy(this.pods, set.metadata?.uid ?? "").filter(
      (pod) => isPodActive(pod) && selector.matches(pod.metadata?.labels),
    );
    let failure: unknown;
    if (mayAct) {
      try {
        await manageReplicas({ set, key, activePods, control: this.control, expectations: this.expectations });
      } catch (error) {
        failure = error;
      }
    }
    const status = replicaSetStatusFrom(set, activePods, this.context.clock.now());
    const written = await writeReplicaSetStatus(this.context.client, set, status);
    if (failure !== undefined) throw failure;
    this.requeueForMinReadySeconds(key, written);
  }

  private requeueForMinReadySeconds(key: string, set: ReplicaSet): void {
    const minReadySeconds = set.spec?.minReadySeconds ?? 0;
    const wanted = set.spec?.replicas;
    if (minReadySeconds > 0 && set.status?.readyReplicas === wanted && set.status?.availableReplicas !== wanted) {
      this.loop.queue.addAfter(key, minReadySeconds * msPerSecond);
    }
  }
}
