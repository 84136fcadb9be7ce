/**
 * The CSI sidecars of a cluster's drivers as single controllers: one external-provisioner (and
 * one external-attacher) per driver, started and stopped together, the way each driver's
 * controller Deployment runs its own csi-provisioner and csi-attacher containers. With no
 * drivers the group does nothing.
 */
import type { Controller, ControllerContext } from "../controller-context.ts";
import { CsiSnapshotter } from "../snapshot/csi-snapshotter.ts";
import { ExternalAttacher } from "./attacher.ts";
import { CapacityController } from "./capacity-controller.ts";
import { CloningProtectionController } from "./cloning-protection.ts";
import type { CsiControllerClient } from "./driver-connection.ts";
import { ExternalProvisioner } from "./provisioner.ts";
import { ExternalResizer } from "./resizer.ts";

/** A driver's controller endpoint, as the sidecars are pointed at it. */
export interface CsiControllerDriver {
  /** The driver name StorageClasses and VolumeAttachments use. */
  name: string;
  client: CsiControllerClient;
  /** The host part of the provisioner's identity (the controller pod's name). */
  hostName?: string;
}

class SidecarGroup implements Controller {
  constructor(
    readonly name: string,
    readonly members: readonly Controller[],
  ) {}

  start(): void {
    for (const member of this.members) member.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.members.map((member) => member.stop()));
  }
}

export const externalProvisionerGroupName = "csi-provisioner";
export const externalAttacherGroupName = "csi-attacher";
export const externalResizerGroupName = "csi-resizer";

export function externalProvisioners(
  context: ControllerContext,
  drivers: readonly CsiControllerDriver[],
): SidecarGroup {
  const members = drivers.flatMap((driver) => [
    new ExternalProvisioner(context, {
      driverName: driver.name,
      driver: driver.client,
      ...(driver.hostName === undefined ? {} : { hostName: driver.hostName }),
    }),
    // `--enable-capacity`: publishes CSIStorageCapacity for drivers that offer GET_CAPACITY.
    new CapacityController(context, { driverName: driver.name, driver: driver.client }),
    // Removes the cloning-protection finalizer from a source claim once its clones are provisioned.
    new CloningProtectionController(context, { driverName: driver.name, driver: driver.client }),
  ]);
  return new SidecarGroup(externalProvisionerGroupName, members);
}

export function externalAttachers(context: ControllerContext, drivers: readonly CsiControllerDriver[]): SidecarGroup {
  const members = drivers.map(
    (driver) => new ExternalAttacher(context, { driverName: driver.name, driver: driver.client }),
  );
  return new SidecarGroup(externalAttacherGroupName, members);
}

export const csiSnapshotterGroupName = "csi-snapshotter";

export function csiSnapshotters(context: ControllerContext, drivers: readonly CsiControllerDriver[]): SidecarGroup {
  const members = drivers.map(
    (driver) => new CsiSnapshotter(context, { driverName: driver.name, driver: driver.client }),
  );
  return new SidecarGroup(csiSnapshotterGroupName, members);
}

export function externalResizers(context: ControllerContext, drivers: readonly CsiControllerDriver[]): SidecarGroup {
  const members = drivers.map(
    (driver) => new ExternalResizer(context, { driverName: driver.name, driver: driver.client }),
  );
  return new SidecarGroup(externalResizerGroupName, members);
}
