/**
 * One simulated node with its node agent, as the simulator drives it: the SimHost (the machine)
 * and the Kubelet running on it, with the lifecycle faults scenarios use —
 * - `restartKubelet()`: the kubelet process is killed and started again (in-memory state lost, the
 *   agent-scope processes die, volumes are reconstructed from disk, containers keep running);
 * - `powerOff()`: the machine loses power: nothing is cleaned up, no Lease or status is posted any
 *   more, every process and mount is gone;
 * - `powerOn()`: the machine boots and a new kubelet starts over what survived on disk.
 */
import type { Client } from "../api/client/client.ts";
import type { Timers } from "../api/timers.ts";
import type { SimHost } from "../host/sim/sim-host.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { Rng } from "../runtime/rng.ts";
import { Kubelet, type KubeletOptions } from "./kubelet.ts";

/** What a scenario may set on a node's kubelet (`--node-labels`, `--register-with-taints`, …). */
type SimKubeletSettings = Partial<
  Pick<
    KubeletOptions,
    | "zone"
    | "region"
    | "address"
    | "kubeletPort"
    | "labels"
    | "taints"
    | "capacity"
    | "pluginRegistrationHandler"
    | "extraVolumePlugins"
    | "repairCorruptedCsiMounts"
  >
>;

interface SimNodeAgentOptions {
  host: SimHost;
  client: Client;
  clock: Clock;
  rng: Rng;
  logger: Logger;
  timers: Timers;
  kubelet?: SimKubeletSettings;
}

export class SimNodeAgent {
  readonly host: SimHost;
  private readonly options: SimNodeAgentOptions;
  private current: Kubelet | undefined;
  /** Kubelet processes started so far; each gets its own random stream. */
  private starts = 0;

  constructor(options: SimNodeAgentOptions) {
    this.options = options;
    this.host = options.host;
  }

  get nodeName(): string {
    return this.host.nodeName;
  }

  /** The running kubelet, if any. */
  get kubelet(): Kubelet | undefined {
    return this.current?.running ? this.current : undefined;
  }

  /** Starts a kubelet process; resolves once it has registered its Node. */
  async start(): Promise<void> {
    if (this.current?.running) throw new Error(`node ${this.nodeName}: a kubelet is already running`);
    if (!this.host.poweredOn) throw new Error(`node ${this.nodeName} is powered off; power it on first`);
    const { client, clock, rng, logger, timers } = this.options;
    this.current = new Kubelet({
      client,
      clock,
      rng: rng.stream(`start-${this.starts++}`),
      logger,
      host: this.host,
      timers,
      ...this.options.kubelet,
    });
    await this.current.start();
  }

  /** Kills the kubelet process (its agent-scope processes die with it) without starting it again. */
  async stopKubelet(): Promise<void> {
    await this.current?.stop();
    this.current = undefined;
  }

  async restartKubelet(): Promise<void> {
    await this.stopKubelet();
    await this.start();
  }

  /** Power loss: the machine goes down first, so the kubelet gets no chance to clean anything up. */
  async powerOff(): Promise<void> {
    this.host.powerOff();
    await this.stopKubelet();
  }

  /** The machine boots and a new kubelet starts. */
  async powerOn(): Promise<void> {
    this.host.powerOn();
    await this.start();
  }

  /** Stops the kubelet at the end of a simulation. */
  async stop(): Promise<void> {
    await this.stopKubelet();
  }
}
