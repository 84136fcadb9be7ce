/**
 * The node agent (Kubernetes' kubelet, as far as storage needs it). `start()` registers the Node,
 * creates its CSINode, then runs:
 * - the pod informer for pods bound to this node, feeding the pod manager and one pod worker per
 *   pod (pod-workers.ts, pod-sync.ts): volumes mounted through the volume manager before simulated
 *   containers start, liveness probes, restarts, termination and the final delete;
 * - the volume manager (volumemanager/);
 * - the node status loop (volumesInUse handshake) and the Lease heartbeat;
 * - the plugin watcher on `<root>/plugins_registry/`, which registers CSI drivers (their node ID,
 *   topology and volume limit go into the CSINode; the CSI volume plugin finds them in `csiDrivers`),
 *   and the housekeeping pass.
 *
 * `stop()` is the process being killed: every loop stops and all in-memory state is lost with this
 * object, and the processes in the kubelet's own scope on the node die (FUSE daemons it forked without
 * a scope of their own) — only those: a CSI node plugin's daemons live in the plugin's scope. Operations still in flight stop where they are (process-lifetime.ts): the
 * kubelet reaches its Host and Clock only through its ProcessLifetime. Containers belong to the
 * node's runtime and keep running; a new Kubelet over the same Host is a kubelet restart, which
 * reconstructs its volumes from disk.
 */

import type { Node, Pod, Taint } from "kubernetes-types/core/v1.js";
import type { CSIDriver } from "kubernetes-types/storage/v1.js";
import type { Client } from "../api/client/client.ts";
import type { KubeletVolumeManagerDebugState } from "../api/debug/debug-state.ts";
import { EventRecorder } from "../api/events/recorder.ts";
import { SharedInformer } from "../api/informer/shared-informer.ts";
import { jsonEqual, jsonEqualExceptField } from "../api/store/json-equal.ts";
import { DEFAULT_TIMERS, type Timers } from "../api/timers.ts";
import type { Host } from "../host/host.ts";
import type { Clock, Timer } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { Metrics } from "../runtime/metrics.ts";
import type { Rng } from "../runtime/rng.ts";
import { defaultKubeletRootDir } from "../volume/paths.ts";
import type { VolumePlugin } from "../volume/plugin.ts";
import type { CsiConnector } from "../volume/plugins/csi/connector/csi-connector.ts";
import { SimCsiConnector } from "../volume/plugins/csi/connector/sim-csi-connector.ts";
import { simSocketTable } from "../volume/plugins/csi/connector/sim-socket-table.ts";
import { SocketCsiConnector } from "../volume/plugins/csi/connector/socket-csi-connector.ts";
import { CsiDriverRegistry } from "../volume/plugins/csi/csi-driver-registry.ts";
import { CsiRegistrationHandler } from "../volume/plugins/csi/registration/csi-registration-handler.ts";
import {
  housekeepingPeriodMs,
  kubeletAgentName,
  nodeRegistrationRetryInitialMs,
  nodeRegistrationRetryMaxMs,
} from "./constants.ts";
import type { KubeletContainerRuntime } from "./container/container-runtime.ts";
import { SimContainerRuntime } from "./container/sim-container-runtime.ts";
import { eventReason, startingKubeletMessage } from "./events.ts";
import { Housekeeping } from "./housekeeping.ts";
import { CsiNodeInfo } from "./node/csi-node-info.ts";
import { NodeLease } from "./node/node-lease.ts";
import { NodeStatusReporter } from "./node/node-status-reporter.ts";
import type { NodeIdentity } from "./node/node-status-setters.ts";
import { type PluginRegistrationHandler, PluginWatcher } from "./node/plugin-watcher.ts";
import { nodeScopedInformer } from "./node-scoped-informer.ts";
import { ContainerSync } from "./pod/container-sync.ts";
import { BoundPodManager } from "./pod/pod-manager.ts";
import { PodSync } from "./pod/pod-sync.ts";
import { PodWorkers } from "./pod/pod-workers.ts";
import { Prober } from "./prober/prober.ts";
import { ProcessLifetime } from "./process-lifetime.ts";
import { retryUntilStopped } from "./retry-until-stopped.ts";
import { type Summary, statsSummary } from "./stats/stats-summary.ts";
import { StatusManager } from "./status/status-manager.ts";
import { volumeLogger, wireNodeVolumes } from "./volume-wiring.ts";
import { ClientVolumeApi } from "./volumemanager/client-volume-api.ts";
import { kubeletVolumeManagerDebugState } from "./volumemanager/debug-state.ts";
import {
  createVolumeManager,
  type KubeletVolumeManager,
  kubeletEventComponent,
} from "./volumemanager/kubelet-volume-manager.ts";

export interface KubeletOptions {
  client: Client;
  clock: Clock;
  rng: Rng;
  logger: Logger;
  /** The node the agent runs on; its name is the Node's name. */
  host: Host;
  timers?: Timers;
  /** `--root-dir`; `/var/lib/kubelet` by default. */
  rootDir?: string;
  /** The node's InternalIP; a simulated node's own address by default. */
  address?: string;
  /** The port of the kubelet's server, reported in the Node's daemonEndpoints; 10250 by default. */
  kubeletPort?: number;
  zone?: string;
  region?: string;
  /** `--node-labels`. */
  labels?: Readonly<Record<string, string>>;
  /** `--register-with-taints`. */
  taints?: readonly Taint[];
  capacity?: Readonly<Record<string, string>>;
  /** The node's container runtime; the one shared by every kubelet of this Host by default. */
  runtime?: KubeletContainerRuntime;
  /**
   * Replaces the CSI registration of sockets that appear in `plugins_registry/` (tests that only
   * watch the watcher); by default the kubelet registers CSI drivers itself.
   */
  pluginRegistrationHandler?: PluginRegistrationHandler;
  /**
   * How the kubelet reaches CSI driver and registrar sockets: by default in-process on a simulated
   * node (deterministic), real Unix sockets and gRPC otherwise.
   */
  csiConnector?: CsiConnector;
  /** Volume plugins besides the in-tree ones. */
  extraVolumePlugins?: readonly VolumePlugin[];
  /**
   * kvol beyond Kubernetes (default true): republish CSI pod mounts found corrupted at a pod sync
   * (volumemanager/corrupted-mounts.ts); false reproduces Kubernetes.
   */
  repairCorruptedCsiMounts?: boolean;
}

interface SimulatedNodeHost {
  readonly options: { readonly address: string };
  readonly poweredOn: boolean;
  killAgentScope(agent: string): unknown;
}

function isSimulatedNodeHost(host: Host): host is Host & SimulatedNodeHost {
  return "killAgentScope" in host && "poweredOn" in host && "options" in host;
}

/**
 * The simulator's sockets on a simulated node (the node's socket table, reached through the
 * kubelet's own view of the host); real Unix sockets with wall-clock deadlines elsewhere.
 */
function defaultCsiConnector(node: Host, kubeletHost: Host, clock: Clock, callTimeoutMs: number): CsiConnector {
  return isSimulatedNodeHost(node)
    ? new SimCsiConnector({ host: kubeletHost, sockets: simSocketTable(node), clock, callTimeoutMs })
    : new SocketCsiConnector({ clock, callTimeoutMs });
}

/** True when only the status (and so the resourceVersion) differs: the kubelet's own write coming back. */
function onlyStatusChanged(old: Pod, pod: Pod): boolean {
  // Every pod update passes here: compare in place, quick on the subtrees the store shares.
  return jsonEqualExceptField(old.metadata, pod.metadata, "resourceVersion") && jsonEqual(old.spec, pod.spec);
}

/** Fallback InternalIP of a node whose Host does not say. */
const unknownNodeAddress = "127.0.0.1";

export class Kubelet {
  readonly nodeName: string;
  readonly volumeManager: KubeletVolumeManager;
  readonly runtime: KubeletContainerRuntime;
  readonly csiNodeInfo: CsiNodeInfo;
  /** The CSI drivers registered on this node (lost with the process; drivers register again). */
  readonly csiDrivers = new CsiDriverRegistry();
  readonly podManager = new BoundPodManager();
  /** The kubelet's Prometheus registry, served on its server's `/metrics`. */
  readonly metrics = new Metrics();
  readonly podWorkers: PodWorkers;
  private readonly options: KubeletOptions;
  /** Ends with `stop()`: the kubelet sees its Host and Clock through it. */
  private readonly lifetime = new ProcessLifetime(kubeletAgentName);
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly timers: Timers;
  private readonly recorder: EventRecorder;
  private readonly prober: Prober;
  private readonly nodeStatus: NodeStatusReporter;
  private readonly lease: NodeLease;
  private readonly pluginWatcher: PluginWatcher;
  private readonly podInformer: SharedInformer<Pod>;
  private readonly nodeInformer: SharedInformer<Node>;
  private readonly csiDriverInformer: SharedInformer<CSIDriver>;
  private readonly housekeeping: Housekeeping;
  private housekeepingTimer: Timer | undefined;
  private unsubscribeRuntime: (() => void) | undefined;
  private readonly notifyPodStateChanged: () => void;
  private state: "new" | "running" | "stopped" = "new";
  /** When start() was called: the Summary API's node start time. */
  private startedAtMs: number | undefined;
  /** What the debug endpoint reads besides the volume manager: the node's host and kubelet root. */
  private readonly debugHost: { host: Host; rootDir: string };

  constructor(options: KubeletOptions) {
    this.options = options;
    const { client } = options;
    const host = this.lifetime.host(options.host);
    const clock = this.lifetime.clock(options.clock);
    this.clock = clock;
    this.nodeName = host.nodeName;
    this.timers = options.timers ?? DEFAULT_TIMERS;
    this.logger = options.logger.with({ component: kubeletEventComponent, node: this.nodeName });
    const rng = options.rng.stream(`kubelet/${this.nodeName}`);
    const rootDir = options.rootDir ?? defaultKubeletRootDir;
    this.debugHost = { host, rootDir };
    this.recorder = new EventRecorder({
      client,
      clock,
      logger: this.logger,
      source: { component: kubeletEventComponent, host: this.nodeName },
    });
    // The container runtime is not part of the kubelet process: it outlives it, on the node itself.
    this.runtime = options.runtime ?? SimContainerRuntime.forHost(options.host, options.clock, options.rng);
    this.podInformer = nodeScopedInformer(client.pods, `spec.nodeName=${this.nodeName}`, {
      clock,
      rng: rng.stream("pod-informer"),
      logger: this.logger,
    });
    this.nodeInformer = nodeScopedInformer(client.nodes, `metadata.name=${this.nodeName}`, {
      clock,
      rng: rng.stream("node-informer"),
      logger: this.logger,
    });

    this.csiDriverInformer = new SharedInformer(client.csiDrivers, {
      clock,
      rng: rng.stream("csidriver-informer"),
      logger: this.logger,
      resyncPeriodMs: 0,
    });

    const identity = this.nodeIdentity();
    const wiring = wireNodeVolumes({
      client,
      clock,
      rng: rng.stream("volumes"),
      logger: this.logger,
      host,
      nodeName: this.nodeName,
      rootDir,
      ...(options.capacity === undefined ? {} : { allocatable: options.capacity }),
      ...(options.extraVolumePlugins === undefined ? {} : { extraPlugins: options.extraVolumePlugins }),
      csi: {
        drivers: this.csiDrivers,
        api: {
          cachedCsiDriver: (name) => this.csiDriverInformer.lister.get("", name),
          getVolumeAttachment: (name) => client.volumeAttachments.get("", name),
        },
      },
    });

    let podWorkers: PodWorkers | undefined;
    const workers = (): PodWorkers => {
      if (podWorkers === undefined) throw new Error("kubelet: pod workers used before they were created");
      return podWorkers;
    };
    // The volume populator parks until a pod's lifecycle answer may have changed: a pod worker moved
    // on, or a container exited.
    const podStateListeners: (() => void)[] = [];
    this.notifyPodStateChanged = () => {
      for (const listener of podStateListeners) listener();
    };
    this.volumeManager = createVolumeManager({
      clock,
      logger: this.logger,
      timers: this.timers,
      client,
      node: wiring.node,
      plugins: wiring.plugins,
      podManager: this.podManager,
      podStateProvider: {
        shouldPodContainersBeTerminating: (uid) => workers().shouldPodContainersBeTerminating(uid),
        shouldPodRuntimeBeRemoved: (uid) => workers().shouldPodRuntimeBeRemoved(uid) && !this.runtime.isPodRunning(uid),
        onChange: (listener) => podStateListeners.push(listener),
      },
      sourcesReady: { allReady: () => this.podInformer.hasSynced() },
      onCsiDriverChange: (listener) => {
        this.csiDriverInformer.addEventHandler({ onAdd: listener, onUpdate: listener, onDelete: listener });
      },
      recorder: this.recorder,
      cachedNode: () => this.nodeInformer.lister.get("", this.nodeName),
      metrics: this.metrics,
      ...(options.repairCorruptedCsiMounts === undefined
        ? {}
        : { repairCorruptedCsiMounts: options.repairCorruptedCsiMounts }),
    });

    const runtime = this.runtime;
    this.prober = new Prober({
      clock,
      rng: rng.stream("prober"),
      host,
      ...(runtime.exec === undefined
        ? {}
        : {
            execInContainer: (instance, command, timeoutMs) =>
              runtime.exec?.(instance, command, timeoutMs) ?? Promise.reject(new Error("exec is not supported")),
          }),
      recorder: this.recorder,
      logger: this.logger,
      onLivenessFailure: (uid) => workers().requestSync(uid),
      onReadinessChange: (uid) => workers().requestSync(uid),
    });
    const containers = new ContainerSync({
      clock,
      host,
      runtime: this.runtime,
      prober: this.prober,
      recorder: this.recorder,
      logger: this.logger,
      mountedVolumes: (uid) => this.volumeManager.getMountedVolumesForPod(uid),
      innerVolumeNames: (uid) => this.volumeManager.getInnerVolumeNamesForPod(uid),
      rootDir,
      mounter: wiring.node.mounter,
      resyncAfter: (uid, delayMs) => workers().requestSyncAfter(uid, delayMs),
      envObjects: new ClientVolumeApi(client),
      hostIP: identity.address,
      ...(options.capacity === undefined ? {} : { nodeAllocatable: options.capacity }),
    });
    const podSync = new PodSync({
      clock,
      host,
      logger: this.logger,
      recorder: this.recorder,
      rootDir,
      hostIP: identity.address,
      volumeManager: this.volumeManager,
      statusManager: new StatusManager({ client, clock, logger: this.logger }),
      containers,
      runtime: this.runtime,
      prober: this.prober,
      terminatedPodVolumeCleanupPollMs: this.timers.terminatedPodVolumeCleanupPollMs,
      terminatedPodVolumeCleanupTimeoutMs: this.timers.podAttachAndMountTimeoutMs,
    });
    podWorkers = new PodWorkers({
      clock,
      rng: rng.stream("pod-workers"),
      logger: this.logger,
      handler: podSync,
      resyncIntervalMs: this.timers.kubeletSyncFrequencyMs,
    });
    this.podWorkers = podWorkers;
    podWorkers.onChange(this.notifyPodStateChanged);

    this.nodeStatus = new NodeStatusReporter({
      client,
      clock,
      rng: rng.stream("node-status"),
      logger: this.logger,
      recorder: this.recorder,
      identity,
      volumes: this.volumeManager,
      nodeStatusUpdateFrequencyMs: this.timers.nodeStatusUpdateFrequencyMs,
    });
    this.lease = new NodeLease({
      client,
      clock,
      logger: this.logger,
      nodeName: this.nodeName,
      renewIntervalMs: this.timers.nodeLeaseRenewIntervalMs,
      leaseDurationSeconds: this.timers.nodeLeaseDurationSeconds,
    });
    this.csiNodeInfo = new CsiNodeInfo({ client, logger: this.logger, nodeName: this.nodeName });
    this.pluginWatcher = new PluginWatcher({
      host,
      clock,
      logger: this.logger,
      rootDir,
      handler:
        options.pluginRegistrationHandler ??
        new CsiRegistrationHandler({
          connector: options.csiConnector ?? defaultCsiConnector(options.host, host, clock, this.timers.csiTimeoutMs),
          drivers: this.csiDrivers,
          nodeInfo: this.csiNodeInfo,
          logger: volumeLogger(this.logger),
        }),
    });
    this.housekeeping = new Housekeeping({
      logger: this.logger,
      podManager: this.podManager,
      podWorkers,
      runtime: this.runtime,
      volumes: this.volumeManager,
    });
  }

  /** Registers the node and starts every loop; resolves once the Node is registered. */
  async start(): Promise<void> {
    if (this.state !== "new")
      throw new Error(`kubelet ${this.nodeName}: start() called twice; create a new Kubelet to restart`);
    this.state = "running";
    this.startedAtMs = this.clock.now();
    this.recorder.eventForReference(
      this.nodeStatus.nodeReference(),
      "Normal",
      eventReason.starting,
      startingKubeletMessage,
    );
    await this.nodeStatus.register();
    if (this.state !== "running") return;
    void this.initializeCsiNode();
    // Before any volume is looked at: whether a CSI volume needs attaching comes from this cache.
    this.csiDriverInformer.start();
    this.startPodSource();
    this.unsubscribeRuntime = this.runtime.subscribe({
      containerExited: (instance) => {
        this.podWorkers.requestSync(instance.podUID);
        this.notifyPodStateChanged();
      },
    });
    this.volumeManager.run();
    this.nodeStatus.start();
    this.lease.start();
    await this.pluginWatcher.start();
    this.housekeepingTimer = this.clock.every(housekeepingPeriodMs, () => this.runHousekeeping());
    this.logger.info("Kubelet started");
  }

  /**
   * The kubelet process dies: loops stop, in-memory state is gone, and the agent-scope processes on
   * the node die with it (unless the node itself is already down).
   */
  async stop(): Promise<void> {
    if (this.state === "stopped") return;
    this.state = "stopped";
    this.housekeepingTimer?.cancel();
    this.unsubscribeRuntime?.();
    this.podWorkers.stop();
    this.prober.stop();
    this.nodeStatus.stop();
    this.lease.stop();
    this.pluginWatcher.stop();
    this.podInformer.stop();
    this.nodeInformer.stop();
    this.csiDriverInformer.stop();
    this.csiDrivers.closeAll();
    const host = this.options.host;
    if (isSimulatedNodeHost(host) && host.poweredOn) host.killAgentScope(kubeletAgentName);
    await this.volumeManager.stop();
    this.lifetime.end();
    this.logger.info("Kubelet stopped");
  }

  /** The Summary API's answer now (the kubelet server's `/stats/summary`). */
  statsSummary(): Promise<Summary> {
    const { host, rootDir } = this.debugHost;
    return statsSummary({
      nodeName: this.nodeName,
      nowMs: this.clock.now(),
      startTimeMs: this.startedAtMs ?? this.clock.now(),
      rootDir,
      pods: this.podManager.getPods(),
      mountedVolumes: (uid) => this.volumeManager.asw.getMountedVolumesForPod(uid),
      statfs: (path) => host.statfs(path),
    });
  }

  /** The volume manager's state, read-only (the kubelet server's `/debug/volumemanager`). */
  debugState(): Promise<KubeletVolumeManagerDebugState> {
    return kubeletVolumeManagerDebugState({
      nowMs: this.clock.now(),
      nodeName: this.nodeName,
      ...this.debugHost,
      volumeManager: this.volumeManager,
      registeredCsiDrivers: this.csiDrivers.names(),
    });
  }

  get running(): boolean {
    return this.state === "running";
  }

  /** Runs one node status pass now (tests and tools; the loop runs every nodeStatusUpdateFrequencyMs). */
  syncNodeStatus(): Promise<void> {
    return this.nodeStatus.syncNodeStatus();
  }

  /** Runs one plugin registry scan now. */
  scanPluginRegistry(): Promise<void> {
    return this.pluginWatcher.scan();
  }

  private nodeIdentity(): NodeIdentity {
    const { host } = this.options;
    const address = this.options.address ?? (isSimulatedNodeHost(host) ? host.options.address : unknownNodeAddress);
    return {
      nodeName: this.nodeName,
      address,
      ...(this.options.kubeletPort === undefined ? {} : { kubeletPort: this.options.kubeletPort }),
      ...(this.options.zone === undefined ? {} : { zone: this.options.zone }),
      ...(this.options.region === undefined ? {} : { region: this.options.region }),
      ...(this.options.labels === undefined ? {} : { labels: this.options.labels }),
      ...(this.options.taints === undefined ? {} : { taints: this.options.taints }),
      ...(this.options.capacity === undefined ? {} : { capacity: this.options.capacity }),
    };
  }

  private startPodSource(): void {
    this.podInformer.addEventHandler({
      onAdd: (pod) => this.podChanged(pod, false),
      onUpdate: (old, pod) => this.podChanged(pod, onlyStatusChanged(old, pod)),
      onDelete: (pod) => {
        this.podManager.removePod(pod);
        this.podWorkers.podRemoved(pod);
      },
    });
    this.nodeInformer.start();
    this.podInformer.start();
  }

  private podChanged(pod: Pod, statusOnly: boolean): void {
    this.podManager.setPod(pod);
    this.podWorkers.updatePod(pod, statusOnly);
  }

  /** The CSINode is created in the background, retried until it exists (the CSI plugin's init does the same). */
  private async initializeCsiNode(): Promise<void> {
    await retryUntilStopped(
      {
        clock: this.clock,
        initialMs: nodeRegistrationRetryInitialMs,
        maxMs: nodeRegistrationRetryMaxMs,
        keepTrying: () => this.state === "running",
        onFailure: (error, retryInMs) => this.logger.error("Failed to initialize CSINode", { error, retryInMs }),
      },
      () => this.csiNodeInfo.initialize(),
    );
  }

  private async runHousekeeping(): Promise<void> {
    if (!this.podInformer.hasSynced()) return;
    try {
      await this.housekeeping.run();
    } catch (error) {
      this.logger.error("Failed cleaning pods", { error });
    }
  }
}
