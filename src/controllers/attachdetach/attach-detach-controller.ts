/**
 * The attach/detach controller (spec §2): attaches the volumes that scheduled pods need to their
 * nodes and detaches them once no pod needs them and the node stopped using them.
 *
 * - Informer handlers keep the desired state current: pods add or remove their attachable volumes,
 *   bound claims re-process the pods that use them (PVC worker), nodes join when managed and
 *   report which volumes they still use (`status.volumesInUse`).
 * - The reconciler (100 ms, parked while idle) detaches, then attaches, then writes node statuses,
 *   and every minute asks the plugins whether attached volumes are still attached.
 * - The populator (1 min, full relist every 3 min) repairs what events missed.
 * - On start, the state is rebuilt from nodes, VolumeAttachments and pods (startup.ts).
 *
 * Attach and detach run through the shared operation executor and the attachable plugins:
 * kvol.io/sim-disk (the simulated provider), rbd (a no-op here: the node maps), and CSI
 * (VolumeAttachment objects).
 */
import type { Node, PersistentVolume, PersistentVolumeClaim, Pod } from "kubernetes-types/core/v1.js";
import type { CSIDriver, VolumeAttachment } from "kubernetes-types/storage/v1.js";
import type { AttachDetachControllerDebugState } from "../../api/debug/debug-state.ts";
import { ensureIndex, podsByClaim } from "../../api/informer/indexes.ts";
import type { HandlerRegistration, SharedInformer } from "../../api/informer/shared-informer.ts";
import { objectKey, splitObjectKey } from "../../api/objects.ts";
import type { Timer } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import { defaultControllerRateLimiter } from "../../runtime/rate-limiter.ts";
import { runWorkers } from "../../runtime/run-workers.ts";
import { WorkQueue } from "../../runtime/workqueue.ts";
import type { VolumeEventRecorder } from "../../volume/operationexecutor/operation-context.ts";
import { OperationExecutor } from "../../volume/operationexecutor/operation-executor.ts";
import type { VolumePlugin } from "../../volume/plugin.ts";
import { VolumePluginManager } from "../../volume/plugin-manager.ts";
import type { SimDiskProvider } from "../../volume/plugins/simdisk/sim-disk-attacher.ts";
import { type Controller, type ControllerContext, recorderFor } from "../controller-context.ts";
import { ActualStateOfWorld } from "./cache/actual-state-of-world.ts";
import { DesiredStateOfWorld } from "./cache/desired-state-of-world.ts";
import { attachDetachControllerName, pvcWorkerCount } from "./constants.ts";
import { controllerVolumeHost, controllerVolumePlugins } from "./controller-volume-host.ts";
import { attachDetachDebugState } from "./debug-state.ts";
import { forcedDetachesCounter, totalVolumesGauge } from "./metrics.ts";
import { isPodTerminated } from "./pod-terminated.ts";
import { type PodVolumeContext, processPodVolumes, shouldAddVolumes } from "./pod-volumes.ts";
import { DesiredStatePopulator } from "./populator/desired-state-populator.ts";
import { kubernetesMultiAttachPolicy, type MultiAttachPolicy } from "./reconciler/multi-attach-policy.ts";
import { Reconciler } from "./reconciler/reconciler.ts";
import {
  addNodeToDesiredState,
  podAdded,
  populateActualStateFromNodes,
  populateActualStateFromVolumeAttachments,
  populateDesiredState,
  type StartupContext,
} from "./startup.ts";
import { NodeStatusUpdater } from "./statusupdater/node-status-updater.ts";

export interface AttachDetachControllerOptions {
  /** Where kvol.io/sim-disk volumes attach (the SimWorld's disk provider). */
  simDiskProvider?: SimDiskProvider;
  /** Replaces the default plugins (the in-tree ones and the controller side of CSI). */
  plugins?: readonly VolumePlugin[];
  /** `--disable-force-detach-on-timeout`: never force-detach after maxWaitForUnmountDuration. */
  disableForceDetachOnTimeout?: boolean;
  /** `--disable-attach-detach-reconcile-sync`: no periodic "are volumes still attached" check. */
  disableReconcileSync?: boolean;
  /**
   * Whether a volume attached to one node may be attached to another (Kubernetes' rule by default).
   * Tests inject a broken one (testing/broken-multi-attach-policy.ts) to show that the simulator's
   * invariants and `kvol sim explore` catch the double attach it causes.
   */
  multiAttachPolicy?: MultiAttachPolicy;
}

interface Informers {
  pods: SharedInformer<Pod>;
  nodes: SharedInformer<Node>;
  claims: SharedInformer<PersistentVolumeClaim>;
  volumes: SharedInformer<PersistentVolume>;
  csiDrivers: SharedInformer<CSIDriver>;
  volumeAttachments: SharedInformer<VolumeAttachment>;
}

function informersOf(context: ControllerContext): Informers {
  const factory = context.informers;
  const pods = factory.informerFor("Pod");
  ensureIndex(pods, podsByClaim);
  return {
    pods,
    nodes: factory.informerFor("Node"),
    claims: factory.informerFor("PersistentVolumeClaim"),
    volumes: factory.informerFor("PersistentVolume"),
    csiDrivers: factory.informerFor("CSIDriver"),
    volumeAttachments: factory.informerFor("VolumeAttachment"),
  };
}

/** Events stop with the controller: a stopped controller's late operations must not speak for it. */
class StoppableRecorder implements VolumeEventRecorder {
  stopped = false;
  constructor(private readonly recorder: VolumeEventRecorder) {}
  event(pod: Pod, type: "Normal" | "Warning", reason: string, message: string): void {
    if (!this.stopped) this.recorder.event(pod, type, reason, message);
  }
}

export class AttachDetachController implements Controller {
  readonly name = attachDetachControllerName;
  readonly dsw: DesiredStateOfWorld;
  readonly asw: ActualStateOfWorld;
  readonly executor: OperationExecutor;
  readonly reconciler: Reconciler;
  private readonly context: ControllerContext;
  private readonly logger: Logger;
  private readonly informers: Informers;
  private readonly recorder: StoppableRecorder;
  private readonly podVolumes: PodVolumeContext;
  private readonly populator: DesiredStatePopulator;
  private readonly claimQueue: WorkQueue<string>;
  private readonly forceDetach: { maxWaitForUnmountMs: number; disableForceDetachOnTimeout: boolean };
  private readonly registrations: HandlerRegistration[] = [];
  private populatorTimer: Timer | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(context: ControllerContext, options: AttachDetachControllerOptions = {}) {
    this.context = context;
    const { clock, timers } = context;
    this.logger = context.logger.with({ component: attachDetachControllerName });
    this.informers = informersOf(context);
    this.recorder = new StoppableRecorder(recorderFor(context, attachDetachControllerName));
    this.dsw = new DesiredStateOfWorld();
    const dsw = this.dsw;
    // The actual state keeps the attachments no pod wants, for the reconciler's detach pass.
    this.asw = new ActualStateOfWorld(clock, (volumeName, nodeName) => dsw.volumeExists(volumeName, nodeName));
    this.dsw.onWantedChange((volumeName, nodeName) => this.asw.wantedChanged(volumeName, nodeName));
    const plugins = this.pluginManager(options);
    this.executor = new OperationExecutor({
      plugins,
      recorder: this.recorder,
      nodes: context.client.nodes,
      clock,
      logger: this.logger,
    });
    this.podVolumes = {
      dsw: this.dsw,
      plugins,
      logger: this.logger,
      listers: {
        claim: (namespace, name) => this.informers.claims.lister.get(namespace, name),
        persistentVolume: (name) => this.informers.volumes.lister.get("", name),
      },
    };
    const cachedNode = (name: string): Node | undefined => this.informers.nodes.lister.get("", name);
    const statusUpdater = new NodeStatusUpdater({
      client: context.client,
      cachedNode,
      asw: this.asw,
      logger: this.logger,
    });
    this.forceDetach = {
      maxWaitForUnmountMs: timers.adcMaxWaitForUnmountMs,
      disableForceDetachOnTimeout: options.disableForceDetachOnTimeout ?? false,
    };
    this.reconciler = new Reconciler({
      clock,
      logger: this.logger,
      dsw: this.dsw,
      asw: this.asw,
      executor: this.executor,
      statusUpdater,
      recorder: this.recorder,
      cachedNode,
      loopPeriodMs: timers.adcReconcilerLoopPeriodMs,
      ...this.forceDetach,
      syncPeriodMs: timers.adcReconcilerSyncPeriodMs,
      disableReconcileSync: options.disableReconcileSync ?? false,
      multiAttachPolicy: options.multiAttachPolicy ?? kubernetesMultiAttachPolicy,
      ...(context.metrics === undefined ? {} : { forcedDetaches: forcedDetachesCounter(context.metrics) }),
    });
    this.populator = new DesiredStatePopulator({
      clock,
      logger: this.logger,
      dsw: this.dsw,
      plugins,
      pods: {
        get: (namespace, name) => this.informers.pods.lister.get(namespace, name),
        list: () => this.informers.pods.lister.list(),
      },
      podVolumes: this.podVolumes,
      fullRelistPeriodMs: timers.adcPopulatorFullRelistPeriodMs,
    });
    if (context.metrics !== undefined) {
      totalVolumesGauge(context.metrics, {
        desired: () => this.dsw.getVolumesToAttach(),
        actual: () => this.asw.getAttachedVolumes(),
      });
    }
    this.claimQueue = new WorkQueue({
      name: "attachdetach-pvcs",
      clock,
      rateLimiter: defaultControllerRateLimiter<string>(clock),
      ...(context.metrics === undefined ? {} : { metrics: context.metrics }),
    });
  }

  start(): void {
    if (this.running !== undefined) throw new Error(`${this.name}: start() called twice`);
    this.running = this.run();
  }

  /** The desired and actual states, force-detach timers and operations (the debug endpoint). */
  debugState(): AttachDetachControllerDebugState {
    return attachDetachDebugState({
      nowMs: this.context.clock.now(),
      dsw: this.dsw,
      asw: this.asw,
      executor: this.executor,
      ...this.forceDetach,
    });
  }

  /** Stops the loops and handlers. Operations already started finish, but no longer write events. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.recorder.stopped = true;
    this.populatorTimer?.cancel();
    for (const registration of this.registrations) registration.remove();
    this.claimQueue.shutDown();
    await this.reconciler.stop();
    await this.running;
  }

  private pluginManager(options: AttachDetachControllerOptions): VolumePluginManager {
    const { client, clock, rng, timers } = this.context;
    const pluginOptions = {
      client,
      clock,
      rng,
      logger: this.logger,
      csiTimeoutMs: timers.csiTimeoutMs,
      volumeAttachments: this.informers.volumeAttachments.lister,
      csiDrivers: this.informers.csiDrivers.lister,
      ...(options.simDiskProvider === undefined ? {} : { simDiskProvider: options.simDiskProvider }),
    };
    const manager = new VolumePluginManager();
    manager.register(options.plugins ?? controllerVolumePlugins(pluginOptions), controllerVolumeHost(pluginOptions));
    return manager;
  }

  private async run(): Promise<void> {
    const synced = await Promise.all(Object.values(this.informers).map((informer) => informer.waitForSync()));
    if (!synced.every(Boolean) || this.stopped) return;
    this.populateStates();
    this.registerHandlers();
    this.reconciler.start();
    this.populatorTimer = this.context.clock.every(this.context.timers.adcDesiredStatePopulatorLoopPeriodMs, () =>
      this.populator.pass(),
    );
    await runWorkers(
      this.claimQueue,
      pvcWorkerCount,
      (key) => this.syncClaim(key),
      (key, err) => this.logger.error("error syncing PVC", { pvc: key, error: errorMessage(err) }),
    );
  }

  private populateStates(): void {
    const startup: StartupContext = {
      asw: this.asw,
      dsw: this.dsw,
      plugins: this.podVolumes.plugins,
      podVolumes: this.podVolumes,
      logger: this.logger,
      cachedNode: (name) => this.informers.nodes.lister.get("", name),
      cachedPersistentVolume: (name) => this.informers.volumes.lister.get("", name),
    };
    populateActualStateFromNodes(startup, this.informers.nodes.lister.list());
    populateActualStateFromVolumeAttachments(startup, this.informers.volumeAttachments.lister.list());
    populateDesiredState(startup, this.informers.pods.lister.list());
  }

  private registerHandlers(): void {
    const { pods, nodes, claims } = this.informers;
    const podChanged = (pod: Pod): void => podAdded(pod, this.podVolumes);
    const claimChanged = (claim: PersistentVolumeClaim): void => this.claimQueue.add(objectKey(claim));
    this.registrations.push(
      pods.addEventHandler({
        onAdd: podChanged,
        onUpdate: (_old, pod) => podChanged(pod),
        onDelete: (pod) => processPodVolumes(pod, false, this.podVolumes),
      }),
      nodes.addEventHandler({
        onAdd: (node) => {
          this.nodeChanged(node);
          // The Node may have been re-created without its volumesAttached: write it again.
          this.asw.setNodeStatusUpdateNeeded(node.metadata?.name ?? "");
        },
        onUpdate: (_old, node) => this.nodeChanged(node),
        onDelete: (node) => this.nodeDeleted(node),
      }),
      claims.addEventHandler({ onAdd: claimChanged, onUpdate: (_old, claim) => claimChanged(claim) }),
    );
  }

  private nodeChanged(node: Node): void {
    addNodeToDesiredState(this.dsw, node);
    this.asw.setVolumesMountedByNode(node.metadata?.name ?? "", node.status?.volumesInUse ?? []);
  }

  private nodeDeleted(node: Node): void {
    const nodeName = node.metadata?.name ?? "";
    try {
      this.dsw.deleteNode(nodeName);
    } catch (err) {
      this.logger.info("Error removing node from desired-state-of-world", { node: nodeName, error: errorMessage(err) });
    }
    this.asw.setVolumesMountedByNode(nodeName, node.status?.volumesInUse ?? []);
  }

  /** A bound claim: its scheduled, running pods may now have a resolvable volume. */
  private syncClaim(key: string): void {
    const { namespace, name } = splitObjectKey(key);
    const claim = this.informers.claims.lister.get(namespace, name);
    if (claim === undefined || claim.status?.phase !== "Bound" || !claim.spec?.volumeName) return;
    for (const pod of this.informers.pods.indexer.byIndex(podsByClaim.name, key)) {
      if (!pod.spec?.nodeName || isPodTerminated(pod)) continue;
      processPodVolumes(pod, shouldAddVolumes(pod, this.dsw), this.podVolumes);
    }
  }
}
