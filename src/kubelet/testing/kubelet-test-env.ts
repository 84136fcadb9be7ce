/**
 * One simulated node with a real kubelet on it, over a memory store on virtual time, for the node
 * agent's tests: no scheduler and no attach/detach controller, so pods are created already bound
 * (`spec.nodeName`) and attachable volumes never get attached unless a test says so.
 */
import type { Event, Pod } from "kubernetes-types/core/v1.js";
import { InProcessClient } from "../../api/client/in-process-client.ts";
import { isNotFound } from "../../api/errors.ts";
import type { KubeStore } from "../../api/store/kube-store.ts";
import { createMemoryStore } from "../../api/store/memory-store.ts";
import { type Timers, timersWith } from "../../api/timers.ts";
import type { SimHost } from "../../host/sim/sim-host.ts";
import { type SimNodeOptions, SimWorld } from "../../host/sim/sim-world.ts";
import { Logger, MemorySink } from "../../runtime/logger.ts";
import { Rng } from "../../runtime/rng.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { Kubelet, type KubeletOptions } from "../kubelet.ts";

const testNodeName = "node-1";

interface KubeletTestEnvOptions {
  seed?: number;
  node?: SimNodeOptions;
  timers?: Partial<Timers>;
  kubelet?: Partial<Pick<KubeletOptions, "zone" | "labels" | "taints" | "capacity" | "pluginRegistrationHandler">>;
}

export class KubeletTestEnv {
  readonly clock = new VirtualClock();
  readonly rng: Rng;
  readonly store: KubeStore;
  readonly client: InProcessClient;
  readonly logs = new MemorySink();
  readonly logger: Logger;
  readonly world: SimWorld;
  readonly host: SimHost;
  readonly timers: Timers;
  kubelet: Kubelet;
  private readonly options: KubeletTestEnvOptions;

  private constructor(options: KubeletTestEnvOptions) {
    this.options = options;
    this.rng = new Rng(options.seed ?? 1);
    this.store = createMemoryStore({ clock: this.clock, random: this.rng.stream("store") });
    this.client = new InProcessClient(this.store);
    this.logger = new Logger({ clock: this.clock, sink: this.logs, level: "debug" });
    this.world = new SimWorld(this.clock, this.rng.stream("world"));
    this.host = this.world.addNode(testNodeName, options.node ?? {});
    this.timers = timersWith(options.timers ?? {});
    this.kubelet = this.newKubelet();
  }

  static async start(options: KubeletTestEnvOptions = {}): Promise<KubeletTestEnv> {
    const env = new KubeletTestEnv(options);
    await env.settle(env.kubelet.start());
    return env;
  }

  /** The kubelet process is killed (containers keep running on the node). */
  async stopKubelet(): Promise<void> {
    await this.settle(this.kubelet.stop());
  }

  /** A new kubelet process over the same node: a restart, which reconstructs its state from disk. */
  async startKubelet(): Promise<void> {
    this.kubelet = this.newKubelet();
    await this.settle(this.kubelet.start());
  }

  async stop(): Promise<void> {
    await this.settle(this.kubelet.stop());
  }

  async runFor(durationMs: number): Promise<void> {
    await this.clock.runFor(durationMs);
  }

  /** Runs virtual time until `condition` holds; returns how long it took. Throws after `timeoutMs`. */
  async runUntil(
    condition: () => boolean | Promise<boolean>,
    timeoutMs = 10 * 60_000,
    what = "condition",
  ): Promise<number> {
    const startMs = this.clock.now();
    await this.clock.advanceBy(0);
    while (!(await condition())) {
      if (this.clock.now() - startMs >= timeoutMs) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
      const next = this.clock.nextDueTime() ?? startMs + timeoutMs;
      await this.clock.advanceTo(Math.min(Math.max(next, this.clock.now()), startMs + timeoutMs));
    }
    return this.clock.now() - startMs;
  }

  async createPod(pod: Pod): Promise<Pod> {
    return this.client.pods.create({
      ...pod,
      spec: { ...pod.spec, containers: pod.spec?.containers ?? [], nodeName: testNodeName },
    });
  }

  async pod(name: string, namespace = "default"): Promise<Pod | undefined> {
    try {
      return await this.client.pods.get(namespace, name);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async phase(name: string): Promise<string | undefined> {
    return (await this.pod(name))?.status?.phase;
  }

  /** Events about the pod named `name` (any uid), oldest first, as `reason: message`. */
  async podEvents(name: string): Promise<Event[]> {
    const events = (await this.client.events.list()).items.filter(
      (event) => event.involvedObject.kind === "Pod" && event.involvedObject.name === name,
    );
    return events.sort((a, b) => Number(a.metadata?.resourceVersion) - Number(b.metadata?.resourceVersion));
  }

  async podEventTexts(name: string): Promise<string[]> {
    return (await this.podEvents(name)).map((event) => `${event.reason}: ${event.message}`);
  }

  /** The mount points on the node under `prefix`. */
  async mountPoints(prefix = "/var/lib/kubelet/pods"): Promise<string[]> {
    return (await this.host.mountInfo()).map((mount) => mount.mountPoint).filter((point) => point.startsWith(prefix));
  }

  async readHostFile(path: string): Promise<string> {
    return new TextDecoder().decode(await this.host.readFile(path));
  }

  logLines(): string[] {
    return this.logs.lines();
  }

  private newKubelet(): Kubelet {
    return new Kubelet({
      client: this.client,
      clock: this.clock,
      rng: this.rng.stream("kubelet"),
      logger: this.logger,
      host: this.host,
      timers: this.timers,
      ...this.options.kubelet,
    });
  }

  /** Runs virtual time at the current instant until `promise` settles (registration needs no time). */
  private async settle<T>(promise: Promise<T>): Promise<T> {
    let done = false;
    const tracked = promise.finally(() => {
      done = true;
    });
    tracked.catch(() => undefined);
    for (let step = 0; !done && step < 1000; step++) {
      await this.clock.advanceBy(0);
      if (done) break;
      const next = this.clock.nextDueTime();
      if (next === undefined) break;
      await this.clock.advanceTo(next);
    }
    return tracked;
  }
}
