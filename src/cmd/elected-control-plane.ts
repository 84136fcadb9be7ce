/**
 * One replica of the control plane under leader election (`kvol server --leader-elect`): the
 * components Kubernetes runs as separate processes — kube-controller-manager, kube-scheduler and
 * each CSI driver's csi-provisioner and csi-attacher — each campaigning on a Lease of its own
 * (`control-plane-components.ts`). So of two replicas one may lead the scheduler and the other the
 * controllers, and a component changing hands does not restart the others.
 */
import type { Controller } from "../controllers/controller-context.ts";
import type { ControllerEntry, ControllerWiring } from "./cluster-controllers.ts";
import { electedComponents } from "./control-plane-components.ts";
import { ElectedComponent } from "./elected-component.ts";

export interface ElectedControlPlaneOptions {
  identity: string;
  entries: readonly ControllerEntry[];
  wiring: ControllerWiring;
  informerResyncPeriodMs: number;
  /** A component's leadership ended without a stop: its renew deadline passed. */
  onLost?: (identity: string) => void;
}

export class ElectedControlPlane {
  readonly identity: string;
  readonly components: readonly ElectedComponent[];

  constructor(options: ElectedControlPlaneOptions) {
    this.identity = options.identity;
    this.components = electedComponents(options.entries, options.wiring, options.identity).map(
      (plan) =>
        new ElectedComponent({
          plan,
          informerResyncPeriodMs: options.informerResyncPeriodMs,
          ...(options.onLost === undefined ? {} : { onLost: options.onLost }),
        }),
    );
  }

  /** The controllers running now: those of every component this replica leads. */
  get controllers(): readonly Controller[] {
    return this.components.flatMap((component) => [...component.controllers]);
  }

  /** The component `name` of this replica; an unknown name is an error listing the known ones. */
  component(name: string): ElectedComponent {
    const found = this.components.find((candidate) => candidate.component === name);
    if (found === undefined) {
      const known = this.components.map((candidate) => candidate.component).join(", ");
      throw new Error(`no elected component "${name}" (components: ${known})`);
    }
    return found;
  }

  start(): void {
    for (const component of this.components) component.start();
  }

  /** A clean stop: every Lease is given up; the caller stops `controllers` (they are left running). */
  async stopElection(): Promise<void> {
    await Promise.all(this.components.map((component) => component.stopElection()));
  }

  /** The process is killed: every component stops where it is and its Lease is left to expire. */
  crash(): void {
    for (const component of this.components) component.crash();
  }

  /** Informer caches of the terms that ended; stopped with the cluster. */
  stopInformers(): void {
    for (const component of this.components) component.stopInformers();
  }
}
