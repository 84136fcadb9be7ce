/**
 * The cluster of `kvol up` and `kvol server`: the simulator's Cluster (every controller, simulated
 * nodes with real kubelets) on a VirtualClock paced by the wall clock (`wall-clock-pacer.ts`), its
 * store a SQLite file in the data directory (memory with `ephemeral`), served by the API server
 * with token authentication, node restriction and the fault endpoint.
 *
 * Starting again on the same data directory resumes from the store: every object is there, the
 * nodes register again, and their simulated machines start blank, as after a reboot (the disks of
 * the simulated cloud are recreated empty: `restore-sim-disks.ts`).
 */

import { randomInt, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { leadershipLostMessage } from "../../api/leaderelection/constants.ts";
import { EtcdBackend } from "../../api/store/etcd-backend.ts";
import { type EtcdTlsFiles, loadEtcdTls } from "../../api/store/etcd-tls.ts";
import { KubeStore } from "../../api/store/kube-store.ts";
import { openSqliteStore } from "../../api/store/sqlite-store.ts";
import { openAuditLog } from "../../apiserver/audit/audit-log.ts";
import { TokenFileAuthenticator } from "../../apiserver/auth/token-authenticator.ts";
import { reconcileKubernetesService } from "../../apiserver/kubernetes-service.ts";
import { type RunningApiServer, startApiServer } from "../../apiserver/server.ts";
import { Cluster } from "../../cmd/cluster.ts";
import type { ClusterCsiDriver } from "../../cmd/cluster-csi-drivers.ts";
import type { CsiControllerDriver } from "../../controllers/csi/sidecar-group.ts";
import type { StorageFencer } from "../../controllers/nodefencing/storage-fencer.ts";
import { diskDriverName, fuseDriverName } from "../../csi/drivers/common/constants.ts";
import { connectCsiSocket } from "../../csi/grpc/client.ts";
import type { Timer } from "../../runtime/clock.ts";
import type { LogLevel } from "../../runtime/logger.ts";
import { RealClock } from "../../runtime/real-clock.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import type { StepProgress } from "../step-progress.ts";
import { liveStreamEndpoint } from "../webui/live-stream-endpoint.ts";
import { uiPathPrefix } from "../webui/ui-data.ts";
import { uiEndpoint } from "../webui/ui-endpoint.ts";
import { whyEndpoint } from "../webui/why-endpoint.ts";
import { clusterControllerStates } from "./cluster-controller-states.ts";
import { clusterKubelets } from "./cluster-kubelets.ts";
import { clockSaveIntervalMs, logFileName, shutdownTimeoutMs, storeFileName } from "./constants.ts";
import type { CsiControllerEndpoint } from "./csi-controller-flag.ts";
import { DataDir } from "./data-dir.ts";
import { faultEndpoint } from "./fault-endpoint.ts";
import { LogFileSink } from "./log-file-sink.ts";
import { reattachCsiDisks, restoreCsiDisks } from "./restore-csi-disks.ts";
import { reattachSimDisks, restoreSimDisks } from "./restore-sim-disks.ts";
import { loadOrCreateCa, servingCertificate } from "./serving-ca.ts";
import { type SpeedControl, speedEndpoint } from "./speed-endpoint.ts";
import { bootstrapStorageClasses, embeddedCsiDrivers, replaceableCsiDrivers } from "./storage-classes.ts";
import { WallClockPacer } from "./wall-clock-pacer.ts";

/** Seeds for uids and generated names: a new one per start, so no uid of an earlier run comes back. */
const maxSeed = 2 ** 31 - 1;

interface EmbeddedClusterOptions {
  /** Where everything lives; with `ephemeral` and no directory, a temporary one removed at stop. */
  dataDir: string | undefined;
  /** A memory store: nothing is kept after stop. */
  ephemeral: boolean;
  /** Client URLs of an etcd cluster that holds the objects (kube-apiserver's `--etcd-servers`). */
  etcdServers?: readonly string[] | undefined;
  /** Client TLS files for `https://` etcd servers (kube-apiserver's `--etcd-cafile` and co.). */
  etcdTls?: EtcdTlsFiles | undefined;
  /** Run each control-plane component only while holding its Lease (`control-plane-components.ts`). */
  leaderElect?: boolean;
  /** Simulated nodes to start (`node-1` … `node-N`); 0 for the control plane alone. */
  nodeCount: number;
  port: number;
  host: string;
  /** `--tls-san`: names and addresses the serving certificate holds besides `servingHosts(host)`. */
  tlsSans?: readonly string[];
  logLevel: LogLevel;
  /** Log lines also go to stderr. */
  verbose: boolean;
  progress: StepProgress;
  /** The pace of the cluster's clock against the wall clock (`kvol up --speed`); default 1. */
  speed?: number;
  /** Why the speed must stay 1 (nodes that run on the wall clock elsewhere); `kvol speed` says it. */
  speedFixedBecause?: string;
  /** The bundled disk driver's max_volumes_per_node (`kvol up --max-volumes-per-node`); its own default when absent. */
  maxVolumesPerNode?: number;
  /** Called as soon as the API server listens, before the nodes start. */
  onListening: (cluster: EmbeddedCluster) => void;
  /**
   * Run disk.csi.kvol.io (its controller in the control plane, a node plugin on every simulated
   * node) and create the default storage classes at the data directory's first start (`kvol up`).
   */
  defaultStorage?: boolean;
  /** Controller sockets of CSI drivers running outside kvol (`--csi-controller`). */
  csiControllers?: readonly CsiControllerEndpoint[];
  /** How long an Event is kept after its last write (`--event-ttl`); Kubernetes' 1 h by default. */
  eventTtlSeconds?: number;
  /** Where every write to the API is recorded (`--audit-log-path`); none: no audit log. */
  auditLogPath?: string;
  /** Accept bearer tokens over plain HTTP (`--insecure-http-tokens`); else only over TLS. */
  insecureHttpTokens?: boolean;
  /** `kvol up --csi-capacity-limit`: the bundled drivers' pools (what GetCapacity reports), in bytes. */
  csiCapacityLimitBytes?: number;
  /** `--fence-after`: kvol's node fencing for every node holding volumes; off when absent. */
  fenceAfterMs?: number;
  /** Fencers besides the simulated world's, over the data directory (`kvol up --host linux`: the real disks' loop-device fence). */
  fencers?: (dataDirPath: string) => readonly StorageFencer[];
  /**
   * With `defaultStorage`, the bundled drivers' controllers run as `kvol csi-driver` processes the
   * caller starts (`kvol up --host linux`: real nodes), on the sockets `bundledCsiControllers`
   * names, instead of in this process beside simulated nodes.
   */
  bundledCsiControllersOutside?: boolean;
}

export function nodeNameFor(index: number): string {
  return `node-${index + 1}`;
}

export class EmbeddedCluster {
  readonly dataDir: DataDir;
  /** The etcd cluster holding the objects, when there is one. */
  readonly etcdServers: readonly string[] | undefined;
  readonly cluster: Cluster;
  readonly server: RunningApiServer;
  readonly kubeconfigPath: string;
  readonly logPath: string;
  readonly nodeNames: readonly string[];
  /** The bundled drivers' controller sockets the caller serves (`bundledCsiControllersOutside`). */
  readonly bundledCsiControllers: readonly CsiControllerEndpoint[];
  /** This server's holderIdentity as a candidate for the controllers' Lease, under leader election. */
  readonly leaderIdentity: string | undefined;
  /** Resolves with `leaderelection lost` when this replica could not renew its Lease in time; never otherwise. */
  readonly leadershipLost: Promise<string>;
  private readonly pacer: WallClockPacer;
  private readonly logSink: LogFileSink;
  private readonly temporaryDir: boolean;
  private readonly real: RealClock;
  private readonly clockSaver: Timer | undefined;
  private readonly ephemeral: boolean;
  private readonly closeCsiControllers: () => void;
  private stopping: Promise<void> | undefined;

  private constructor(parts: {
    dataDir: DataDir;
    cluster: Cluster;
    server: RunningApiServer;
    kubeconfigPath: string;
    pacer: WallClockPacer;
    logSink: LogFileSink;
    temporaryDir: boolean;
    real: RealClock;
    nodeNames: readonly string[];
    clockSaver: Timer | undefined;
    ephemeral: boolean;
    etcdServers: readonly string[] | undefined;
    closeCsiControllers: () => void;
    bundledCsiControllers: readonly CsiControllerEndpoint[];
    leadershipLost: Promise<string>;
    leaderIdentity: string | undefined;
  }) {
    this.closeCsiControllers = parts.closeCsiControllers;
    this.bundledCsiControllers = parts.bundledCsiControllers;
    this.leadershipLost = parts.leadershipLost;
    this.leaderIdentity = parts.leaderIdentity;
    this.dataDir = parts.dataDir;
    this.cluster = parts.cluster;
    this.server = parts.server;
    this.kubeconfigPath = parts.kubeconfigPath;
    this.pacer = parts.pacer;
    this.logSink = parts.logSink;
    this.logPath = parts.logSink.path;
    this.temporaryDir = parts.temporaryDir;
    this.real = parts.real;
    this.clockSaver = parts.clockSaver;
    this.ephemeral = parts.ephemeral;
    this.etcdServers = parts.etcdServers;
    this.nodeNames = parts.nodeNames;
  }

  get url(): string {
    return this.server.url;
  }

  /** The address the kubeconfig holds: HTTPS (the same port also answers plain HTTP, `url`). */
  get kubeconfigUrl(): string {
    return this.server.secureUrl ?? this.server.url;
  }

  /** The web UI, the administrator's token in the fragment (the page keeps it; browsers never send a fragment). */
  get webUiUrl(): string {
    return `${this.kubeconfigUrl}${uiPathPrefix}#token=${this.dataDir.ensureAdminToken()}`;
  }

  /** The pace of the cluster's clock: virtual milliseconds per wall-clock millisecond. */
  get speed(): number {
    return this.pacer.speed;
  }

  static async start(options: EmbeddedClusterOptions): Promise<EmbeddedCluster> {
    const temporaryDir = options.dataDir === undefined;
    const dataDir = new DataDir(options.dataDir ?? mkdtempSync(join(tmpdir(), "kvol-")));
    dataDir.create();
    dataDir.lock();
    const logSink = new LogFileSink(dataDir.file(logFileName), { alsoToStderr: options.verbose });
    const undo: (() => Promise<void>)[] = [
      async () => {
        await logSink.close();
        dataDir.unlock();
        if (temporaryDir) rmSync(dataDir.path, { recursive: true, force: true });
      },
    ];
    try {
      return await EmbeddedCluster.assemble(options, { dataDir, logSink, temporaryDir }, undo);
    } catch (error) {
      // A failed start (a port in use, a broken token file) leaves nothing running and the directory free.
      for (const step of undo.reverse()) await step();
      throw error;
    }
  }

  private static async assemble(
    options: EmbeddedClusterOptions,
    files: { dataDir: DataDir; logSink: LogFileSink; temporaryDir: boolean },
    undo: (() => Promise<void>)[],
  ): Promise<EmbeddedCluster> {
    const { dataDir, logSink } = files;
    const adminToken = dataDir.ensureAdminToken();
    const authenticator = new TokenFileAuthenticator(dataDir.tokenFile);
    const real = new RealClock();
    // A run at --speed leaves the cluster's clock ahead of the wall clock; it resumes from there,
    // so no object's timestamp lies in its future.
    const savedClockMs = options.ephemeral ? undefined : dataDir.savedClockMs();
    const clock = new VirtualClock({ startTimeMs: Math.max(real.now(), savedClockMs ?? 0) });
    const storePath = dataDir.file(storeFileName);
    const userControllers = options.csiControllers ?? [];
    const outside = options.defaultStorage === true && options.bundledCsiControllersOutside === true;
    const bundledOutside = outside
      ? bundledControllerEndpoints(dataDir.path).filter(
          (entry) => !userControllers.some((user) => user.driverName === entry.driverName),
        )
      : [];
    const external = externalControllers([...userControllers, ...bundledOutside], real);
    undo.push(async () => external.close());
    // A user's own hostpath.csi.kvol.io or fuse.csi.kvol.io (`--csi-controller`) takes the place of the bundled one, which no default class uses.
    const bundled = (
      options.defaultStorage && !outside
        ? withMaxVolumesPerNode(embeddedCsiDrivers(options.csiCapacityLimitBytes), options.maxVolumesPerNode)
        : []
    ).filter(
      (entry) =>
        !replaceableCsiDrivers.includes(entry.name) || !userControllers.some((user) => user.driverName === entry.name),
    );
    const clash = bundled.find((entry) => external.drivers.some((driver) => driver.name === entry.name));
    if (clash !== undefined) {
      throw new Error(
        `--csi-controller ${clash.name}: kvol up already runs that driver on its simulated nodes; give your driver another name, or run it with kvol server or kvol up --host linux`,
      );
    }
    const etcdServers = options.etcdServers;
    let onLost: (message: string) => void = () => undefined;
    const leadershipLost = new Promise<string>((resolve) => (onLost = resolve));
    // kube-controller-manager's identity: the host name and a fresh uuid, so a restart is a new candidate.
    const leaderElection = options.leaderElect
      ? { identities: [`${hostname()}_${randomUUID()}`], onLost: () => onLost(leadershipLostMessage) }
      : undefined;
    const etcdTls = loadEtcdTls(options.etcdTls ?? {});
    const etcd =
      etcdServers === undefined
        ? undefined
        : await EtcdBackend.open({ endpoints: etcdServers, clock, ...(etcdTls === undefined ? {} : { tls: etcdTls }) });
    const eventTtl = options.eventTtlSeconds === undefined ? {} : { eventTtlSeconds: options.eventTtlSeconds };
    if (etcd !== undefined) undo.push(() => etcd.close());
    const cluster = await options.progress.step(
      options.ephemeral
        ? "control plane started (memory store)"
        : etcdServers !== undefined
          ? `control plane started (etcd ${etcdServers.join(",")})`
          : `control plane started (store ${storePath})`,
      () =>
        Cluster.start({
          clock,
          seed: randomInt(1, maxSeed),
          csiDrivers: bundled,
          externalCsiControllers: external.drivers,
          logLevel: options.logLevel,
          logSink,
          ...(leaderElection === undefined ? {} : { leaderElection }),
          fencing: {
            ...(options.fenceAfterMs === undefined ? {} : { fenceAfterMs: options.fenceAfterMs }),
            ...(options.fencers === undefined ? {} : { fencers: options.fencers(dataDir.path) }),
          },
          ...eventTtl,
          ...(options.ephemeral
            ? {}
            : {
                openStore: (storeClock, random) =>
                  etcd !== undefined
                    ? new KubeStore({ backend: etcd, clock: storeClock, random, ...eventTtl })
                    : openSqliteStore({
                        path: dataDir.privateFile(storeFileName),
                        clock: storeClock,
                        random,
                        ...eventTtl,
                      }),
              }),
        }),
    );
    undo.push(async () => {
      await cluster.stop();
      await cluster.store.close();
    });
    await restoreSimDisks(cluster);
    await restoreCsiDisks(cluster);
    const pacer = new WallClockPacer({
      virtual: clock,
      real,
      onTaskError: (error) => cluster.logger.error("a cluster timer failed", { error }),
      ...(options.speed === undefined ? {} : { speed: options.speed }),
    });
    const speedControl: SpeedControl = {
      get speed() {
        return pacer.speed;
      },
      now: () => clock.now(),
      setSpeed: (speed) => pacer.setSpeed(speed),
      fixedBecause: options.speedFixedBecause,
    };
    pacer.start();
    undo.push(() => pacer.stop());
    // Kept as it goes, so a SIGKILL after a run at --speed also resumes from the cluster's time.
    const clockSaver = options.ephemeral
      ? undefined
      : real.every(clockSaveIntervalMs, () => dataDir.saveClock(clock.now()));
    undo.push(async () => clockSaver?.cancel());
    const ca = loadOrCreateCa(dataDir, real.now());
    const tls = servingCertificate(ca, options.host, real.now(), options.tlsSans);
    const audit =
      options.auditLogPath === undefined
        ? undefined
        : openAuditLog(options.auditLogPath, cluster.logger.with({ component: "kube-apiserver" }), cluster.metrics);
    if (audit !== undefined) undo.push(() => audit.flush());
    // The why endpoint reads this server back as a client; its address is known once it listens.
    let ownUrl = "";
    const server = await startApiServer({
      store: cluster.store,
      clock,
      logger: cluster.logger.with({ component: "kube-apiserver" }),
      port: options.port,
      host: options.host,
      authenticator,
      tls,
      // kubectl and other clients run in real time: `kubectl get -w` must not end 60× sooner.
      connectionClock: real,
      extensions: [
        faultEndpoint(cluster, cluster.logger.with({ component: "kvol-fault" })),
        speedEndpoint(speedControl, cluster.logger.with({ component: "kvol-speed" })),
        uiEndpoint(),
        whyEndpoint({ serverUrl: () => ownUrl, serverCaPem: () => ca.certificatePem, nowMs: () => real.now() }),
        // The debug states are read in real time, as the page that shows them runs.
        liveStreamEndpoint({ feedClock: real }),
      ],
      kubelets: clusterKubelets(cluster),
      controllerStates: clusterControllerStates(cluster),
      metrics: cluster.metrics,
      ...(audit === undefined ? {} : { audit }),
      ...(options.insecureHttpTokens === true ? { insecureHttpTokens: true } : {}),
    });
    ownUrl = server.secureUrl ?? server.url;
    undo.push(() => server.close());
    const listening = new URL(server.url);
    await reconcileKubernetesService(cluster.store, {
      ip: listening.hostname.replace(/^\[|\]$/g, ""),
      port: Number(listening.port),
    });
    if (options.defaultStorage) {
      const { created } = await bootstrapStorageClasses(cluster.client, dataDir, options.ephemeral);
      if (created.length > 0) cluster.logger.info("created the default storage classes", { created });
    }
    const kubeconfigPath = dataDir.writeKubeconfig(server.secureUrl ?? server.url, adminToken, ca.certificatePem);
    const nodeNames = Array.from({ length: options.nodeCount }, (_, index) => nodeNameFor(index));
    const embedded = new EmbeddedCluster({
      ...files,
      cluster,
      server,
      kubeconfigPath,
      pacer,
      real,
      nodeNames,
      clockSaver,
      ephemeral: options.ephemeral,
      etcdServers: options.etcdServers,
      closeCsiControllers: () => external.close(),
      bundledCsiControllers: bundledOutside,
      leadershipLost,
      leaderIdentity: leaderElection?.identities[0],
    });
    options.onListening(embedded);
    for (const name of nodeNames) {
      await options.progress.step(`${name} started (kubelet registered)`, async () => {
        await cluster.addNode(name);
        await reattachSimDisks(cluster, name);
        await reattachCsiDisks(cluster, name);
      });
    }
    return embedded;
  }

  /** Stops serving, lets the controllers and kubelets finish, closes the store; safe to call twice. */
  stop(): Promise<void> {
    this.stopping ??= this.stopOnce();
    return this.stopping;
  }

  private async stopOnce(): Promise<void> {
    await this.server.close();
    await this.pacer.stop();
    this.clockSaver?.cancel();
    if (!this.ephemeral) this.dataDir.saveClock(this.cluster.clock.now());
    const stopped = await this.withinShutdownTimeout(this.cluster.stop());
    if (!stopped) this.cluster.logger.warn("controllers did not stop in time; closing the store anyway");
    this.closeCsiControllers();
    await this.cluster.store.close();
    await this.logSink.close();
    this.dataDir.unlock();
    if (this.temporaryDir) rmSync(this.dataDir.path, { recursive: true, force: true });
  }

  private withinShutdownTimeout(work: Promise<void>): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      const timer = this.real.setTimer(shutdownTimeoutMs, () => resolve(false));
      work.then(
        () => {
          timer.cancel();
          resolve(true);
        },
        (error: unknown) => {
          timer.cancel();
          reject(error);
        },
      );
    });
  }
}

/** Where the bundled drivers' controller processes listen: `DATA/csi-controllers/<driver>.sock`. */
/**
 * The bundled drivers whose controllers `kvol up --host linux` runs: the disks of the default
 * classes, and fuse.csi.kvol.io, whose node plugins every real node runs (a class naming it
 * provisions; none is created by default).
 */
/** The bundled drivers, the disk driver reporting `maxVolumesPerNode` when one is given. */
function withMaxVolumesPerNode(
  drivers: readonly ClusterCsiDriver[],
  maxVolumesPerNode: number | undefined,
): readonly ClusterCsiDriver[] {
  if (maxVolumesPerNode === undefined) return drivers;
  return drivers.map((entry) =>
    entry.name === diskDriverName ? { ...entry, options: { ...entry.options, maxVolumesPerNode } } : entry,
  );
}

const realNodeControllerDrivers: readonly string[] = [diskDriverName, fuseDriverName];

function bundledControllerEndpoints(dataDirPath: string): CsiControllerEndpoint[] {
  return realNodeControllerDrivers.map((driverName) => ({
    driverName,
    endpoint: `unix://${join(dataDirPath, csiControllersDirName, `${driverName}.sock`)}`,
  }));
}

/** The data directory's folder of controller sockets and logs of the bundled drivers. */
const csiControllersDirName = "csi-controllers";

/**
 * A gRPC client per `--csi-controller` socket. Its deadlines are on the wall clock, which grpc-js
 * measures against; the sidecars bound each call on the cluster's clock as well. Dialled lazily:
 * a driver not listening yet answers Unavailable, and the sidecars probe it again.
 */
function externalControllers(
  endpoints: readonly CsiControllerEndpoint[],
  wallClock: RealClock,
): { drivers: CsiControllerDriver[]; close: () => void } {
  const clients = endpoints.map((entry) => ({
    name: entry.driverName,
    client: connectCsiSocket({ endpoint: entry.endpoint, clock: wallClock }),
  }));
  return {
    drivers: clients,
    close: () => {
      for (const { client } of clients) client.close();
    },
  };
}
