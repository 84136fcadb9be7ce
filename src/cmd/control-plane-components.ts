/**
 * How the control plane splits into the components Kubernetes elects separately, each on a Lease of
 * its own: kube-controller-manager's controllers on `kube-system/kube-controller-manager`,
 * kube-scheduler on `kube-system/kube-scheduler` (both with component-base's 15 s / 10 s / 2 s),
 * per CSI driver, its csi-provisioner, csi-attacher, csi-snapshotter and csi-resizer on the Leases
 * their sidecar containers take, and the snapshot-controller on its own (csi-lib-utils' 15 s / 10 s / 5 s). A replica campaigns for each on its own, so
 * two replicas may share the components out, and one component changing hands leaves the others
 * running where they are.
 */
import {
  controllerManagerLeaseName,
  controllerManagerLeaseNamespace,
  schedulerLeaseName,
  schedulerLeaseNamespace,
} from "../api/leaderelection/constants.ts";
import type { Timers } from "../api/timers.ts";
import {
  csiSnapshotterGroupName,
  externalAttacherGroupName,
  externalProvisionerGroupName,
  externalResizerGroupName,
} from "../controllers/csi/sidecar-group.ts";
import {
  csiSidecarLeaseNamespace,
  externalAttacherLeaseName,
  externalProvisionerLeaseName,
  externalResizerLeaseName,
  externalSnapshotterLeaseName,
  sanitizedLeaderElectionName,
  snapshotControllerLeaseName,
} from "../controllers/csi/sidecar-lease.ts";
import { snapshotControllerName } from "../controllers/snapshot/snapshot-controller.ts";
import { type ControllerEntry, type ControllerWiring, kubeControllerManagerNames } from "./cluster-controllers.ts";

export const controllerManagerComponent = "kube-controller-manager";
export const schedulerComponent = "kube-scheduler";
/** The sidecar groups that run one member per driver, each member on the Lease its sidecar takes. */
const perDriverSidecarLeases: ReadonlyMap<string, (driverName: string) => string> = new Map([
  [externalProvisionerGroupName, externalProvisionerLeaseName],
  [externalAttacherGroupName, externalAttacherLeaseName],
  [csiSnapshotterGroupName, externalSnapshotterLeaseName],
  [externalResizerGroupName, externalResizerLeaseName],
]);
/** The controller entry kube-scheduler runs. */
const schedulerEntryName = "default-scheduler";

export interface LeaderElectionTimings {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** One separately elected component of a replica: what it runs and the Lease it campaigns for. */
export interface ComponentPlan {
  /** `kube-controller-manager`, `kube-scheduler`, `csi-provisioner/<driver>`, `csi-attacher/<driver>`. */
  component: string;
  lease: { namespace: string; name: string };
  /** The holderIdentity this replica writes for it. */
  identity: string;
  timings: LeaderElectionTimings;
  entries: readonly ControllerEntry[];
  wiring: ControllerWiring;
}

function controlPlaneTimings(timers: Timers): LeaderElectionTimings {
  return {
    leaseDurationMs: timers.leaderElectionLeaseDurationMs,
    renewDeadlineMs: timers.leaderElectionRenewDeadlineMs,
    retryPeriodMs: timers.leaderElectionRetryPeriodMs,
  };
}

function sidecarTimings(timers: Timers): LeaderElectionTimings {
  return {
    leaseDurationMs: timers.csiSidecarLeaderElectionLeaseDurationMs,
    renewDeadlineMs: timers.csiSidecarLeaderElectionRenewDeadlineMs,
    retryPeriodMs: timers.csiSidecarLeaderElectionRetryPeriodMs,
  };
}

/** The sidecar group `entry` split per driver: one component (and one Lease) per driver's sidecar. */
function sidecarPlans(
  entry: ControllerEntry,
  wiring: ControllerWiring,
  identity: string,
  leaseName: (driverName: string) => string,
): ComponentPlan[] {
  return (wiring.csiDrivers ?? []).map((driver) => ({
    component: `${entry.name}/${driver.name}`,
    lease: { namespace: csiSidecarLeaseNamespace, name: leaseName(driver.name) },
    identity: sanitizedLeaderElectionName(identity),
    timings: sidecarTimings(wiring.context.timers),
    entries: [entry],
    wiring: { ...wiring, csiDrivers: [driver] },
  }));
}

/**
 * The components `entries` make up under leader election, for the replica `identity`; a component
 * none of whose controllers was selected is left out (it campaigns for nothing).
 */
export function electedComponents(
  entries: readonly ControllerEntry[],
  wiring: ControllerWiring,
  identity: string,
): ComponentPlan[] {
  const timings = controlPlaneTimings(wiring.context.timers);
  const controllerManager = entries.filter((entry) => kubeControllerManagerNames.has(entry.name));
  const scheduler = entries.filter((entry) => entry.name === schedulerEntryName);
  const plans: ComponentPlan[] = [];
  if (controllerManager.length > 0) {
    plans.push({
      component: controllerManagerComponent,
      lease: { namespace: controllerManagerLeaseNamespace, name: controllerManagerLeaseName },
      identity,
      timings,
      entries: controllerManager,
      wiring,
    });
  }
  if (scheduler.length > 0) {
    plans.push({
      component: schedulerComponent,
      lease: { namespace: schedulerLeaseNamespace, name: schedulerLeaseName },
      identity,
      timings,
      entries: scheduler,
      wiring,
    });
  }
  for (const entry of entries) {
    const sidecarLeaseName = perDriverSidecarLeases.get(entry.name);
    if (sidecarLeaseName !== undefined) {
      plans.push(...sidecarPlans(entry, wiring, identity, sidecarLeaseName));
    } else if (entry.name === snapshotControllerName) {
      plans.push({
        component: snapshotControllerName,
        lease: { namespace: csiSidecarLeaseNamespace, name: snapshotControllerLeaseName },
        identity: sanitizedLeaderElectionName(identity),
        timings: sidecarTimings(wiring.context.timers),
        entries: [entry],
        wiring,
      });
    } else if (!kubeControllerManagerNames.has(entry.name) && entry.name !== schedulerEntryName) {
      throw new Error(`controller "${entry.name}" belongs to no elected component (control-plane-components.ts)`);
    }
  }
  return plans;
}
