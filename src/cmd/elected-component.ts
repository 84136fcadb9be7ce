/**
 * One separately elected component of a control-plane replica (kube-controller-manager,
 * kube-scheduler, one driver's csi-provisioner or csi-attacher): it runs its controllers only while
 * it holds its own Lease. When it becomes leader its controllers start fresh, with informer caches
 * of their own filled from the API — the attach/detach controller rebuilds its actual state from
 * node status (`volumesAttached`) and VolumeAttachments, as after a restart. When it cannot renew
 * within the renew deadline its controllers stop and `onLost` is told (kvol server then exits, as
 * each of these processes does). `crash` is kill -9: the Lease is left to expire.
 */

import { SharedInformerFactory } from "../api/informer/shared-informer-factory.ts";
import { leadershipLostMessage } from "../api/leaderelection/constants.ts";
import { LeaderElector } from "../api/leaderelection/leader-elector.ts";
import type { Controller } from "../controllers/controller-context.ts";
import { errorMessage } from "../runtime/error-message.ts";
import type { ComponentPlan } from "./control-plane-components.ts";

export interface ElectedComponentOptions {
  plan: ComponentPlan;
  informerResyncPeriodMs: number;
  /** Leadership ended without a stop: the renew deadline passed. */
  onLost?: (identity: string) => void;
}

export class ElectedComponent {
  readonly component: string;
  readonly identity: string;
  private readonly options: ElectedComponentOptions;
  private readonly elector: LeaderElector;
  private running: Controller[] = [];
  private informers: SharedInformerFactory | undefined;
  private terms = 0;
  private stopping = false;

  constructor(options: ElectedComponentOptions) {
    this.options = options;
    const { plan } = options;
    this.component = plan.component;
    this.identity = plan.identity;
    const { context } = plan.wiring;
    this.elector = new LeaderElector({
      client: context.client,
      clock: context.clock,
      rng: context.rng.stream(`leader-election/${plan.component}/${plan.identity}`),
      logger: context.logger.with({ component: "leader-election", identity: plan.identity, lease: plan.lease.name }),
      lease: plan.lease,
      identity: plan.identity,
      ...plan.timings,
      releaseOnCancel: true,
      onStartedLeading: () => this.startControllers(),
      onStoppedLeading: () => this.leadershipEnded(),
    });
  }

  /** The controllers running now: all of this component's while leading, none otherwise. */
  get controllers(): readonly Controller[] {
    return this.running;
  }

  get isLeader(): boolean {
    return this.elector.isLeader;
  }

  /** How many times this candidate started leading (each term starts fresh controllers). */
  get termsLed(): number {
    return this.terms;
  }

  start(): void {
    this.elector.start();
  }

  /** A clean stop: the Lease is given up; the caller stops `controllers` (they are left running). */
  async stopElection(): Promise<void> {
    this.stopping = true;
    await this.elector.stop();
  }

  /** The process is killed: the controllers stop where they are and the Lease is left to expire. */
  crash(): void {
    this.stopping = true;
    this.elector.crash();
    this.stopControllers();
  }

  /** Informer caches of the term that ended; stopped with the cluster. */
  stopInformers(): void {
    this.informers?.stop();
  }

  private startControllers(): void {
    const { wiring, entries, component } = this.options.plan;
    const { context } = wiring;
    this.terms++;
    const informers = new SharedInformerFactory(context.client, context.clock, {
      resyncPeriodMs: this.options.informerResyncPeriodMs,
      rng: context.rng.stream(`informers/${component}/${this.identity}/${this.terms}`),
      logger: context.logger,
    });
    this.informers = informers;
    const termContext = {
      ...context,
      informers,
      rng: context.rng.stream(`controllers/${component}/${this.identity}/${this.terms}`),
    };
    this.running = entries.map((entry) => entry.create({ ...wiring, context: termContext }));
    for (const controller of this.running) controller.start();
    informers.start();
    context.logger.info("started leading: controllers started", { component, identity: this.identity });
  }

  private leadershipEnded(): void {
    if (this.stopping) return;
    this.options.plan.wiring.context.logger.error(leadershipLostMessage, {
      component: this.component,
      identity: this.identity,
    });
    this.stopControllers();
    this.options.onLost?.(this.identity);
  }

  private stopControllers(): void {
    const { logger } = this.options.plan.wiring.context;
    for (const controller of this.running) {
      controller
        .stop()
        .catch((error: unknown) =>
          logger.warn("stopping a controller failed", { controller: controller.name, error: errorMessage(error) }),
        );
    }
    this.running = [];
    this.informers?.stop();
  }
}
