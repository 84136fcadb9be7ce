/**
 * A whole cluster in one process on virtual time: a memory store, an in-process client, one shared
 * informer factory, the VirtualClock, the seeded Rng, a logger into memory, the timers, the
 * simulated world (cloud disks, storage servers, node hosts) and every controller in
 * `cluster-controllers.ts`. Tests and scenarios use one of these instead of wiring their own:
 *
 *   const cluster = await Cluster.start({ seed: 7 });
 *   await cluster.addNode("node-a", { zone: "zone-1" });
 *   await cluster.apply(yamlText);
 *   await cluster.runFor(7 * 60_000);
 *   const events = await cluster.events({ kind: "Pod", name: "web-0" });
 *
 * Nodes run the real node agent (`kubelet/sim-node-agent.ts`: a SimHost with a Kubelet on it) unless
 * the cluster runs the test-only pod lifecycle stand-in (`standInKubelet`, `src/sim/stand-in-kubelet.ts`) or
 * the node asks for `agent: "heartbeat"`: those nodes only get the test heartbeat (`node-heartbeat.ts`). The same seed and the same
 * calls give the same sequence of writes (`recordWrites` and `writes()` show it).
 */

import { withAdmission } from "../api/admission/admission-store.ts";
import type { ResourceClient } from "../api/client/client.ts";
import { InProcessClient } from "../api/client/in-process-client.ts";
import { isAlreadyExists, isNotFound } from "../api/errors.ts";
import { SharedInformerFactory } from "../api/informer/shared-informer-factory.ts";
import type { Event, KindMap, KindName, KObject, Node } from "../api/objects.ts";
import { resourceForKind } from "../api/resources.ts";
import type { KubeStore, StoreRandom } from "../api/store/kube-store.ts";
import { createMemoryStore } from "../api/store/memory-store.ts";
import type { DeleteOptions, ListOptions } from "../api/store/store.ts";
import { type Timers, timersWith } from "../api/timers.ts";
import type { MultiAttachPolicy } from "../controllers/attachdetach/reconciler/multi-attach-policy.ts";
import type { Controller, ControllerContext } from "../controllers/controller-context.ts";
import type { CsiControllerDriver } from "../controllers/csi/sidecar-group.ts";
import type { Provisioner } from "../controllers/persistentvolume/provisioner.ts";
import { SimWorld } from "../host/sim/sim-world.ts";
import type { Kubelet } from "../kubelet/kubelet.ts";
import { SimNodeAgent } from "../kubelet/sim-node-agent.ts";
import { errorMessage } from "../runtime/error-message.ts";
import { Logger, type LogLevel, type LogSink, MemorySink } from "../runtime/logger.ts";
import { Metrics } from "../runtime/metrics.ts";
import { Rng } from "../runtime/rng.ts";
import { VirtualClock } from "../runtime/virtual-clock.ts";
import { ApiFaults } from "../sim/faults/api-faults.ts";
import { StandInKubelet } from "../sim/stand-in-kubelet.ts";
import {
  type ControllerEntry,
  type ControllerWiring,
  type FencingWiring,
  kubeControllerManagerNames,
  selectControllers,
} from "./cluster-controllers.ts";
import { type ClusterCsiDriver, ClusterCsiDrivers } from "./cluster-csi-drivers.ts";
import { compareEvents, type EventFilter, matchesEventFilter } from "./cluster-events.ts";
import { type NodeOptions, newNodeObject } from "./cluster-nodes.ts";
import {
  defaultClusterSeed,
  defaultRunUntilTimeoutMs,
  stopDrainMaxSteps,
  stopDrainStepMs,
  systemNamespaces,
} from "./constants.ts";
import { controllerManagerComponent } from "./control-plane-components.ts";
import { ElectedControlPlane } from "./elected-control-plane.ts";
import { type Manifest, type Manifests, parseManifests } from "./manifests.ts";
import { NodeHeartbeat } from "./node-heartbeat.ts";
import { WriteLog, type WriteRecord } from "./write-log.ts";

export type { ClusterCsiDriver, EventFilter, NodeOptions };

export interface ClusterOptions {
  /** Seeds every random choice (uids, generated names, jitter); default 1. */
  seed?: number;
  /** Kubernetes timers to override (names from `src/api/timers.ts`). */
  timers?: Partial<Timers>;
  /** Run only these controllers, by component name; all of them by default. */
  controllers?: readonly string[];
  /** Provisioners besides the built-in sim-disk one. */
  provisioners?: readonly Provisioner[];
  /** Run the test-only kubelet stand-in: bound pods become Running and Ready, deletions finish. */
  standInKubelet?: boolean;
  /** Keep the sequence of every object write (`writes()`); off by default, it costs one watch per kind. */
  recordWrites?: boolean;
  /** Least severe log level kept in `logs`; default "info". */
  logLevel?: LogLevel;
  /** How often informers redeliver every object; 0 (default) disables resync. */
  informerResyncPeriodMs?: number;
  /**
   * CSI drivers to run (`cluster-csi-drivers.ts`): their CSIDriver objects, one controller (on the
   * first kubelet node) behind the csi-provisioner and csi-attacher sidecars, and a node plugin on
   * every kubelet node, registered with its kubelet through `plugins_registry/`.
   */
  csiDrivers?: readonly ClusterCsiDriver[];
  /**
   * Drivers running outside the cluster (`kvol up --csi-controller`): their controller endpoints,
   * which get a csi-provisioner and a csi-attacher each, like the drivers of `csiDrivers`.
   */
  externalCsiControllers?: readonly CsiControllerDriver[];
  /**
   * The attach/detach controller's Multi-Attach policy (Kubernetes' by default). Tests inject a
   * broken one — a deliberately broken controller — to check that the invariants catch it.
   */
  multiAttachPolicy?: MultiAttachPolicy;
  /**
   * kvol's node fencing (`docs/fencing.md`): `fenceAfterMs` fences every silent node holding volumes
   * (`--fence-after`); without it only StorageClasses annotated `fencing.kvol.io/fence-after` are.
   */
  fencing?: FencingWiring;
  /**
   * Called once the cluster runs, before anything is applied to it: simulation tools that act on
   * the cluster during a run (`kvol sim explore`'s random faults) arm their timers here.
   */
  onStarted?: (cluster: Cluster) => void;
  /**
   * The clock to run on; a fresh VirtualClock by default. `kvol up` passes one that a pacer moves
   * along with the wall clock (`src/cli/embedded/`), so the same cluster runs in real time.
   */
  clock?: VirtualClock;
  /** Opens the store; a memory store by default (`kvol up` opens its SQLite file here). */
  openStore?: (clock: VirtualClock, random: StoreRandom) => KubeStore;
  /** How long the default memory store keeps an Event after its last write; Kubernetes' 1 h by default. */
  eventTtlSeconds?: number;
  /** Also receives every log record kept in `logs` (`kvol up` prints them). */
  logSink?: LogSink;
  /**
   * Leader election (`kvol server --leader-elect`): one control-plane replica per identity, each of
   * its components (kube-controller-manager, kube-scheduler, each driver's csi-provisioner and
   * csi-attacher) running only while it holds that component's Lease (`control-plane-components.ts`).
   * `onLost` is told when a component could not renew within its renew deadline.
   */
  leaderElection?: { identities: readonly string[]; onLost?: (identity: string) => void };
}

export interface RunUntilOptions {
  /** Virtual time allowed before giving up; default ten minutes. */
  timeoutMs?: number;
  /** Names the condition in the timeout error. */
  description?: string;
}

type AnyResourceClient = ResourceClient<KObject>;

export class Cluster {
  readonly clock: VirtualClock;
  readonly rng: Rng;
  readonly store: KubeStore;
  readonly client: InProcessClient;
  /** The client under the components (controllers, kubelets, heartbeats); see the constructor. */
  private readonly componentApi: InProcessClient;
  readonly informers: SharedInformerFactory;
  readonly logs: MemorySink;
  readonly logger: Logger;
  readonly timers: Timers;
  readonly world: SimWorld;
  readonly context: ControllerContext;
  /** API faults in place (latency, partitioned nodes): components talk through clients made here. */
  readonly apiFaults: ApiFaults;
  readonly csiDrivers: ClusterCsiDrivers;
  /** The control plane's metrics: its own registry, never shared with another cluster in this process. */
  readonly metrics = new Metrics();
  private readonly heartbeats = new Map<string, NodeHeartbeat>();
  private readonly nodeAgents = new Map<string, SimNodeAgent>();
  private readonly standIn: StandInKubelet | undefined;
  private readonly writeLog: WriteLog | undefined;
  private readonly controllerEntries: readonly ControllerEntry[];
  private readonly controllerWiring: ControllerWiring;
  private readonly runningControllers: Controller[];
  /** The replicas under leader election; empty when the controllers run without it. */
  private readonly replicas: ElectedControlPlane[];
  /** The informer caches of restarted kube-controller-manager instances, stopped with the cluster. */
  private readonly restartedInformers: SharedInformerFactory[] = [];
  private readonly informerResyncPeriodMs: number;
  private stopped = false;

  private constructor(options: ClusterOptions) {
    this.clock = options.clock ?? new VirtualClock();
    this.rng = new Rng(options.seed ?? defaultClusterSeed);
    const eventTtl = options.eventTtlSeconds === undefined ? {} : { eventTtlSeconds: options.eventTtlSeconds };
    const openStore = options.openStore ?? ((clock, random) => createMemoryStore({ clock, random, ...eventTtl }));
    this.store = openStore(this.clock, this.rng.stream("store"));
    // The client plays kube-apiserver for every component and user: writes go through its admission.
    const admitted = withAdmission(this.store);
    this.client = new InProcessClient(admitted);
    // The components' own client: same store, same admission, same call counts; their status writes
    // and Events skip schema validation (trusted-writes.ts), while users' writes through `client` keep it.
    this.componentApi = new InProcessClient(admitted, { calls: this.client.calls, trustedWrites: true });
    this.apiFaults = new ApiFaults(this.clock);
    const componentClient = this.apiFaults.controlPlaneClient(this.componentApi);
    this.logs = new MemorySink();
    const extraSink = options.logSink;
    const sink: LogSink =
      extraSink === undefined
        ? this.logs
        : {
            write: (record) => {
              this.logs.write(record);
              extraSink.write(record);
            },
          };
    this.logger = new Logger({ clock: this.clock, sink, level: options.logLevel ?? "info" });
    this.timers = timersWith(options.timers ?? {});
    this.informerResyncPeriodMs = options.informerResyncPeriodMs ?? 0;
    this.informers = new SharedInformerFactory(componentClient, this.clock, {
      resyncPeriodMs: this.informerResyncPeriodMs,
      rng: this.rng.stream("informers"),
      logger: this.logger,
    });
    this.world = new SimWorld(this.clock, this.rng.stream("world"));
    this.context = {
      client: componentClient,
      informers: this.informers,
      clock: this.clock,
      rng: this.rng.stream("controllers"),
      logger: this.logger,
      timers: this.timers,
      metrics: this.metrics,
    };
    this.csiDrivers = new ClusterCsiDrivers({
      drivers: options.csiDrivers ?? [],
      client: this.client,
      clock: this.clock,
      logger: this.logger.with({ component: "csi-drivers" }),
      disks: this.world.disks,
    });
    this.controllerWiring = {
      context: this.context,
      world: this.world,
      provisioners: options.provisioners ?? [],
      csiDrivers: [...this.csiDrivers.controllerDrivers(), ...(options.externalCsiControllers ?? [])],
      ...(options.multiAttachPolicy === undefined ? {} : { multiAttachPolicy: options.multiAttachPolicy }),
      ...(options.fencing === undefined ? {} : { fencing: options.fencing }),
    };
    this.controllerEntries = selectControllers(options.controllers);
    const elected = options.leaderElection;
    this.replicas = (elected?.identities ?? []).map(
      (identity) =>
        new ElectedControlPlane({
          identity,
          entries: this.controllerEntries,
          wiring: this.controllerWiring,
          informerResyncPeriodMs: this.informerResyncPeriodMs,
          ...(elected?.onLost === undefined ? {} : { onLost: elected.onLost }),
        }),
    );
    this.runningControllers =
      elected === undefined ? this.controllerEntries.map((entry) => entry.create(this.controllerWiring)) : [];
    this.standIn = options.standInKubelet
      ? new StandInKubelet({
          client: this.componentApi,
          clock: this.clock,
          logger: this.logger.with({ component: "stand-in-kubelet" }),
          pods: this.informers.informerFor("Pod"),
          isNodeAlive: (name) => this.heartbeats.get(name)?.running === true,
        })
      : undefined;
    this.writeLog = options.recordWrites ? new WriteLog() : undefined;
  }

  /** Builds the cluster, creates the system namespaces, starts every controller and waits for the caches. */
  static async start(options: ClusterOptions = {}): Promise<Cluster> {
    const cluster = new Cluster(options);
    await cluster.writeLog?.start(cluster.client, cluster.store.revision(), cluster.logger);
    for (const name of systemNamespaces) {
      // A cluster started on a store kept from an earlier run finds them there already.
      await cluster.client.namespaces
        .create({ apiVersion: "v1", kind: "Namespace", metadata: { name } })
        .catch((error: unknown) => {
          if (!isAlreadyExists(error)) throw error;
        });
    }
    await cluster.csiDrivers.createDriverObjects();
    for (const controller of cluster.controllers) controller.start();
    cluster.standIn?.start();
    cluster.informers.start();
    await cluster.clock.advanceBy(0);
    if (!(await cluster.informers.waitForCacheSync())) {
      throw new Error(`cluster: informer caches did not sync: ${cluster.informers.unsyncedKinds().join(", ")}`);
    }
    for (const replica of cluster.replicas) replica.start();
    options.onStarted?.(cluster);
    return cluster;
  }

  // ---- nodes --------------------------------------------------------------------------------

  /**
   * Adds a simulated machine and starts its kubelet, which registers the Node; with the stand-in
   * kubelet or `agent: "heartbeat"`, registers a Node (Ready, with the usual labels) kept alive by
   * the test heartbeat instead.
   */
  async addNode(name: string, options: NodeOptions = {}): Promise<Node> {
    if (this.heartbeats.has(name) || this.nodeAgents.has(name))
      throw new Error(`addNode: node ${name} was already added`);
    if (this.standIn === undefined && options.agent !== "heartbeat") return this.addKubeletNode(name, options);
    this.world.addNode(name, options.zone === undefined ? {} : { zone: options.zone });
    const node = await this.client.nodes.create(newNodeObject(name, options, this.clock.now()));
    const heartbeat = new NodeHeartbeat({
      client: this.componentApi,
      clock: this.clock,
      timers: this.timers,
      logger: this.logger.with({ component: "node-heartbeat" }),
      nodeName: name,
    });
    this.heartbeats.set(name, heartbeat);
    heartbeat.start();
    return node;
  }

  /** Simulates power-off: the node stops renewing its Lease and posting status; its pods are left as they are. */
  stopHeartbeat(name: string): void {
    const agent = this.nodeAgents.get(name);
    if (agent !== undefined) {
      void agent.powerOff();
      return;
    }
    this.heartbeatOf(name).stop();
  }

  /** The node is back: heartbeats resume (and the stand-in kubelet, if any, picks its pods up again). */
  startHeartbeat(name: string): void {
    const agent = this.nodeAgents.get(name);
    if (agent !== undefined) {
      void agent.powerOn();
      return;
    }
    this.heartbeatOf(name).start();
    this.standIn?.nodeResumed(name);
  }

  /** The kubelet running on `name`, or undefined while it is stopped or the node is off. */
  kubelet(name: string): Kubelet | undefined {
    return this.nodeAgentOf(name).kubelet;
  }

  /** The kubelet process on `name` is killed and started again (volumes are reconstructed from disk). */
  async restartKubelet(name: string): Promise<void> {
    await this.nodeAgentOf(name).restartKubelet();
  }

  /**
   * The kubelet process on `name` is killed and stays down (`systemctl stop kubelet`, a crash loop):
   * the machine keeps running with its mounts, containers and RBD mappings; no Lease or status is posted.
   */
  async stopKubelet(name: string): Promise<void> {
    await this.nodeAgentOf(name).stopKubelet();
  }

  /** A kubelet starts again on `name` after `stopKubelet` (volumes are reconstructed from disk). */
  async startKubelet(name: string): Promise<void> {
    await this.nodeAgentOf(name).start();
  }

  /** The machine `name` loses power: no cleanup, no more Lease or status; mounts and processes are gone. */
  async powerOff(name: string): Promise<void> {
    await this.nodeAgentOf(name).powerOff();
  }

  /** The machine `name` boots again and its kubelet starts. */
  async powerOn(name: string): Promise<void> {
    await this.nodeAgentOf(name).powerOn();
  }

  /**
   * The node plugin of CSI driver `driverName` on `nodeName` restarts (DaemonSet rollout, OOM): the
   * daemons in its scope die, then it starts again (see `cluster-csi-drivers.ts`).
   */
  async restartCsiNodePlugin(nodeName: string, driverName: string): Promise<void> {
    await this.csiDrivers.restartNodePlugin(nodeName, driverName);
  }

  /** The nodes running the real node agent (kubelet), in the order they were added. */
  kubeletNodeNames(): string[] {
    return [...this.nodeAgents.keys()];
  }

  // ---- control plane ------------------------------------------------------------------------

  /** The control-plane controllers running now (a restarted controller-manager's are fresh instances). */
  get controllers(): readonly Controller[] {
    if (this.replicas.length > 0) return this.replicas.flatMap((replica) => [...replica.controllers]);
    return this.runningControllers;
  }

  /** The identity of the replica leading kube-controller-manager now, under leader election. */
  leaderIdentity(): string | undefined {
    return this.leaderOf(controllerManagerComponent);
  }

  /**
   * The identity of the replica leading `component` now (`kube-controller-manager`,
   * `kube-scheduler`, `csi-provisioner/<driver>`, `csi-attacher/<driver>`), under leader election.
   */
  leaderOf(component: string): string | undefined {
    return this.replicas.find((replica) => replica.component(component).isLeader)?.identity;
  }

  /**
   * The control-plane replica `identity` is killed (kill -9): every component of it stops and its
   * Leases are left to expire. With `component`, only that component's process is killed.
   */
  crashControlPlane(identity: string, component?: string): void {
    const replica = this.replica(identity);
    if (component === undefined) replica.crash();
    else replica.component(component).crash();
  }

  /** The replica `identity` under leader election; an unknown one is an error listing the known ones. */
  replica(identity: string): ElectedControlPlane {
    const replica = this.replicas.find((candidate) => candidate.identity === identity);
    if (replica === undefined) {
      const known = this.replicas.map((candidate) => candidate.identity).join(", ");
      throw new Error(`no control-plane replica "${identity}" (replicas: ${known || "none: no leader election"})`);
    }
    return replica;
  }

  /**
   * kube-controller-manager restarts: its controllers (`kubeControllerManagerNames`) stop at once —
   * operations already sent to a cloud API still complete — and fresh instances start with empty
   * caches of their own, filled from the API (the attach/detach controller rebuilds its state from
   * node status and VolumeAttachments). The scheduler and the CSI sidecars keep running.
   */
  restartControllerManager(): void {
    if (this.replicas.length > 0) {
      throw new Error(
        "under leader election a controller-manager restart is a crash of the leader (crashControlPlane)",
      );
    }
    const restarts = this.restartedInformers.length + 1;
    const informers = new SharedInformerFactory(this.context.client, this.clock, {
      resyncPeriodMs: this.informerResyncPeriodMs,
      rng: this.rng.stream(`informers/controller-manager-${restarts}`),
      logger: this.logger,
    });
    this.restartedInformers.push(informers);
    const context = { ...this.context, informers, rng: this.rng.stream(`controllers/restart-${restarts}`) };
    this.controllerEntries.forEach((entry, index) => {
      const old = this.runningControllers[index];
      if (old === undefined || !kubeControllerManagerNames.has(entry.name)) return;
      old
        .stop()
        .catch((error: unknown) =>
          this.logger.warn("stopping a controller failed", { controller: entry.name, error: errorMessage(error) }),
        );
      const fresh = entry.create({ ...this.controllerWiring, context });
      this.runningControllers[index] = fresh;
      fresh.start();
    });
    informers.start();
    this.logger.info("kube-controller-manager restarted", { restarts });
  }

  private async addKubeletNode(name: string, options: NodeOptions): Promise<Node> {
    const host = this.world.addNode(name, {
      ...(options.zone === undefined ? {} : { zone: options.zone }),
      ...(options.withoutCommands === undefined ? {} : { withoutCommands: options.withoutCommands }),
      ...(options.systemd === undefined ? {} : { systemd: options.systemd }),
      ...(options.utilLinux === undefined ? {} : { utilLinux: options.utilLinux }),
    });
    const agent = new SimNodeAgent({
      host,
      client: this.apiFaults.nodeClient(this.componentApi, name),
      clock: this.clock,
      rng: this.rng.stream(`node-agent/${name}`),
      logger: this.logger,
      timers: this.timers,
      kubelet: {
        ...(options.zone === undefined ? {} : { zone: options.zone }),
        ...(options.labels === undefined ? {} : { labels: options.labels }),
        ...(options.taints === undefined ? {} : { taints: options.taints }),
        ...(options.capacity === undefined ? {} : { capacity: options.capacity }),
        ...(options.repairCorruptedCsiMounts === undefined
          ? {}
          : { repairCorruptedCsiMounts: options.repairCorruptedCsiMounts }),
      },
    });
    this.nodeAgents.set(name, agent);
    await agent.start();
    await this.csiDrivers.deployOn(host);
    return this.client.nodes.get("", name);
  }

  private nodeAgentOf(name: string): SimNodeAgent {
    const agent = this.nodeAgents.get(name);
    if (agent === undefined) {
      throw new Error(`node ${name} runs no kubelet (kubelet nodes: ${[...this.nodeAgents.keys()].join(", ")})`);
    }
    return agent;
  }

  private heartbeatOf(name: string): NodeHeartbeat {
    const heartbeat = this.heartbeats.get(name);
    if (heartbeat === undefined) {
      throw new Error(`node ${name} was not added with addNode (nodes: ${[...this.heartbeats.keys()].join(", ")})`);
    }
    return heartbeat;
  }

  // ---- objects ------------------------------------------------------------------------------

  /**
   * Creates each object, or, when it exists, merges the manifest into it (fields the manifest does
   * not mention, such as a claim's volumeName set by the PV controller, are kept). Returns the
   * objects as stored.
   */
  async apply(manifests: Manifests): Promise<KObject[]> {
    const applied: KObject[] = [];
    for (const manifest of parseManifests(manifests)) applied.push(await this.applyOne(manifest));
    return applied;
  }

  private async applyOne({ kind, object }: Manifest): Promise<KObject> {
    const resource = this.resource(kind);
    try {
      return await resource.create(object);
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
    const { resourceVersion: _ignored, ...metadata } = object.metadata ?? {};
    return resource.patch(metadata.namespace ?? "", metadata.name ?? "", { ...object, metadata });
  }

  /** Deletes, or starts a graceful deletion (`gracePeriodSeconds: 0` is `kubectl delete --force --grace-period=0`). */
  async delete(kind: KindName, namespace: string, name: string, options: DeleteOptions = {}): Promise<void> {
    await this.resource(kind).delete(this.namespaceFor(kind, namespace), name, options);
  }

  get<K extends KindName>(kind: K, namespace: string, name: string): Promise<KindMap[K]> {
    return this.client.resource(kind).get(this.namespaceFor(kind, namespace), name);
  }

  /** The object, or undefined when it does not exist. */
  async tryGet<K extends KindName>(kind: K, namespace: string, name: string): Promise<KindMap[K] | undefined> {
    try {
      return await this.get(kind, namespace, name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async list<K extends KindName>(kind: K, options: ListOptions = {}): Promise<KindMap[K][]> {
    return (await this.client.resource(kind).list(options)).items;
  }

  /** Events matching `filter`, in the order they were first recorded. */
  async events(filter: EventFilter = {}): Promise<Event[]> {
    const events = (await this.client.events.list()).items.filter((event) => matchesEventFilter(event, filter));
    return events.sort(compareEvents);
  }

  /** Every write since the cluster started, oldest first; needs `recordWrites`. */
  writes(): WriteRecord[] {
    if (this.writeLog === undefined) throw new Error("writes(): start the cluster with { recordWrites: true }");
    return this.writeLog.entries();
  }

  private resource(kind: KindName): AnyResourceClient {
    // Every kind's client is a ResourceClient of that kind; manifests are untyped objects of it.
    return this.client.resource(kind) as unknown as AnyResourceClient;
  }

  private namespaceFor(kind: KindName, namespace: string): string {
    return resourceForKind(kind)?.namespaced ? namespace : "";
  }

  // ---- time ---------------------------------------------------------------------------------

  /** Lets `durationMs` of virtual time pass, with everything it sets off. */
  async runFor(durationMs: number): Promise<void> {
    await this.clock.runFor(durationMs);
  }

  /**
   * Runs until `condition` holds, checking it after every step of virtual time; throws when it
   * does not within `timeoutMs`. Returns the virtual time it took.
   */
  async runUntil(condition: () => boolean | Promise<boolean>, options: RunUntilOptions = {}): Promise<number> {
    const timeoutMs = options.timeoutMs ?? defaultRunUntilTimeoutMs;
    const startMs = this.clock.now();
    const deadlineMs = startMs + timeoutMs;
    await this.clock.advanceBy(0);
    while (!(await condition())) {
      if (this.clock.now() >= deadlineMs) {
        const what = options.description ?? "the condition";
        throw new Error(`runUntil: ${what} did not hold within ${timeoutMs} ms of virtual time`);
      }
      const nextDueMs = this.clock.nextDueTime() ?? deadlineMs;
      await this.clock.advanceTo(Math.min(Math.max(nextDueMs, this.clock.now()), deadlineMs));
    }
    return this.clock.now() - startMs;
  }

  // ---- shutdown -----------------------------------------------------------------------------

  /** True from the moment `stop()` is called: timers still due while it drains must not act on the cluster. */
  get isStopping(): boolean {
    return this.stopped;
  }

  /** Stops heartbeats, the stand-in kubelet, the controllers (letting their current syncs finish) and the informers. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const heartbeat of this.heartbeats.values()) heartbeat.stop();
    // Node agents first, then controllers, each while virtual time moves on: an agent may be
    // waiting on a timer (a request slowed by the api-latency fault, a retry) before it can stop.
    await this.stopWhileTimeMoves(
      "node agents",
      [...this.nodeAgents].map(([name, agent]) => [name, () => agent.stop()]),
    );
    this.standIn?.stop();
    for (const replica of this.replicas) await replica.stopElection();
    await this.stopWhileTimeMoves(
      "controllers",
      [...this.controllers].reverse().map((controller) => [controller.name, () => controller.stop()]),
    );
    this.informers.stop();
    for (const informers of this.restartedInformers) informers.stop();
    for (const replica of this.replicas) replica.stopInformers();
    this.writeLog?.stop();
  }

  /** Runs every stop at once and moves virtual time on in steps until all have finished. */
  private async stopWhileTimeMoves(
    what: string,
    stops: ReadonlyArray<readonly [name: string, stop: () => Promise<void>]>,
  ): Promise<void> {
    const pending = new Set(stops.map(([name]) => name));
    const stopping = Promise.all(
      stops.map(async ([name, stop]) => {
        await stop();
        pending.delete(name);
      }),
    );
    await this.clock.advanceBy(0);
    for (let step = 0; pending.size > 0 && step < stopDrainMaxSteps; step++)
      await this.clock.advanceBy(stopDrainStepMs);
    if (pending.size > 0) {
      throw new Error(
        `cluster.stop: ${what} still busy after ${stopDrainMaxSteps * stopDrainStepMs} ms: ${[...pending].join(", ")}`,
      );
    }
    await stopping;
  }
}
