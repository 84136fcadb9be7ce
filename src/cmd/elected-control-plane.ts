/**
 * One replica of the control plane under leader election (kube-controller-manager `--leader-elect`):
 * it runs its controllers only while it holds the Lease `kube-system/kube-controller-manager`.
 * When it becomes leader its controllers start fresh, with informer caches of their own filled from
 * the API — the attach/detach controller rebuilds its actual state from node status
 * (`volumesAttached`) and VolumeAttachments, as after a restart. When it cannot renew within the
 * renew deadline its controllers stop and `onLost` is told (kvol server then exits, as
 * kube-controller-manager does). `crash` is kill -9: the Lease is left to expire.
 *
 * kvol elects one leader for its whole control plane (the scheduler and the CSI sidecars included)
 * under kube-controller-manager's Lease.
 */

import { SharedInformerFactory } from "../api/informer/shared-informer-factory.ts";
import {
  controllerManagerLeaseName,
  controllerManagerLeaseNamespace,
  leadershipLostMessage,
} from "../api/leaderelection/constants.ts";
import { LeaderElector } from "../api/leaderelection/leader-elector.ts";
import type { Controller } from "../controllers/controller-context.ts";
import { errorMessage } from "../runtime/error-message.ts";
import type { ControllerEntry, ControllerWiring } from "./cluster-controllers.ts";

export interface ElectedControlPlaneOptions {
  identity: string;
  entries: readonly ControllerEntry[];
  wiring: ControllerWiring;
  informerResyncPeriodMs: number;
  /** Leadership ended without a stop: the renew deadline passed. */
  onLost?: (identity: string) => void;
}

export class ElectedControlPlane {
  readonly identity: string;
  private readonly options: ElectedControlPlaneOptions;
  private readonly elector: LeaderElector;
  private running: Controller[] = [];
  private informers: SharedInformerFactory | undefined;
  private terms = 0;
  private stopping = false;

  constructor(options: ElectedControlPlaneOptions) {
    this.options = options;
    this.identity = options.identity;
    const { context } = options.wiring;
    const timers = context.timers;
    this.elector = new LeaderElector({
      client: context.client,
      clock: context.clock,
      rng: context.rng.stream(`leader-election/${options.identity}`),
      logger: context.logger.with({ component: "leader-election", identity: options.identity }),
      lease: { namespace: controllerManagerLeaseNamespace, name: controllerManagerLeaseName },
      identity: options.identity,
      leaseDurationMs: timers.leaderElectionLeaseDurationMs,
      renewDeadlineMs: timers.leaderElectionRenewDeadlineMs,
      retryPeriodMs: timers.leaderElectionRetryPeriodMs,
      releaseOnCancel: true,
      onStartedLeading: () => this.startControllers(),
      onStoppedLeading: () => this.leadershipEnded(),
    });
  }

  /** The controllers running now: all of them while leading, none otherwise. */
  get controllers(): readonly Controller[] {
    return this.running;
  }

  get isLeader(): boolean {
    return this.elector.isLeader;
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

  /** Informer caches and controllers of the term that ended; stopped with the cluster. */
  stopInformers(): void {
    this.informers?.stop();
  }

  private startControllers(): void {
    const { context } = this.options.wiring;
    this.terms++;
    const informers = new SharedInformerFactory(context.client, context.clock, {
      resyncPeriodMs: this.options.informerResyncPeriodMs,
      rng: context.rng.stream(`informers/${this.identity}/${this.terms}`),
      logger: context.logger,
    });
    this.informers = informers;
    const termContext = {
      ...context,
      informers,
      rng: context.rng.stream(`controllers/${this.identity}/${this.terms}`),
    };
    this.running = this.options.entries.map((entry) => entry.create({ ...this.options.wiring, context: termContext }));
    for (const controller of this.running) controller.start();
    informers.start();
    context.logger.info("started leading: controllers started", { identity: this.identity });
  }

  private leadershipEnded(): void {
    if (this.stopping) return;
    this.options.wiring.context.logger.error(leadershipLostMessage, { identity: this.identity });
    this.stopControllers();
    this.options.onLost?.(this.identity);
  }

  private stopControllers(): void {
    const { logger } = this.options.wiring.context;
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
