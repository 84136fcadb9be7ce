/**
 * The storage classes `kvol up` creates at the first start of a data directory, so that the first
 * claim a user writes, without `storageClassName`, is provisioned as on kind, k3s or minikube:
 * `standard` (the default class, disk.csi.kvol.io: a cloud disk per claim through CSI, with
 * VolumeAttachments, CSINode and the provisioner's and attacher's events), `shared` (multi-attach
 * disks for ReadWriteMany) and `sim-disk` (the in-tree simulated disk plugin, for legacy stories).
 * `examples/00-storage-classes.yaml` holds the same objects (a test keeps the two equal).
 *
 * A user's classes are never touched: a class is created only when none of that name exists, the
 * default annotation only when no other class is the default, and only once per data directory —
 * a marker file records it, so a class the user deleted does not come back at the next start.
 */
import { existsSync, writeFileSync } from "node:fs";
import type { Client } from "../../api/client/client.ts";
import { isAlreadyExists } from "../../api/errors.ts";
import type { StorageClass } from "../../api/objects.ts";
import type { ClusterCsiDriver } from "../../cmd/cluster.ts";
import {
  diskDriverName,
  diskMultiAttachParameter,
  fuseDriverName,
  hostpathDriverName,
} from "../../csi/drivers/common/constants.ts";
import { simDiskPluginName } from "../../volume/plugins/simdisk/sim-disk-source.ts";
import { type DataDir, privateFileMode } from "./data-dir.ts";

/**
 * The CSI drivers the embedded cluster runs: disk.csi.kvol.io for these classes, and, with no
 * class by default, hostpath.csi.kvol.io for node-local volumes, their snapshots and clones, and
 * inline ephemeral volumes (its controller runs on the first node, so its volumes live there), and
 * fuse.csi.kvol.io, volumes served by a FUSE daemon in the node plugin, as real nodes run it (so
 * `kvol fault fuse-daemon-killed` has something to kill). `capacityLimitBytes`
 * (`kvol up --csi-capacity-limit`) bounds the disk and hostpath pools.
 */
export function embeddedCsiDrivers(capacityLimitBytes?: number): ClusterCsiDriver[] {
  const options = capacityLimitBytes === undefined ? {} : { options: { capacityLimitBytes } };
  return [{ name: diskDriverName, ...options }, { name: hostpathDriverName, ...options }, { name: fuseDriverName }];
}

/** The bundled drivers no default class uses: a user's own driver of the same name takes their place. */
export const replaceableCsiDrivers: readonly string[] = [hostpathDriverName, fuseDriverName];

/** The annotation that makes a class the one a claim without `storageClassName` gets. */
const defaultClassAnnotation = "storageclass.kubernetes.io/is-default-class";

/** The file in the data directory recording that the classes were created once. */
const storageClassesMarkerFileName = "storage-classes-created";

function storageClass(
  name: string,
  provisioner: string,
  extra: { isDefault?: boolean; parameters?: Record<string, string> } = {},
): StorageClass {
  return {
    apiVersion: "storage.k8s.io/v1",
    kind: "StorageClass",
    metadata: { name, ...(extra.isDefault ? { annotations: { [defaultClassAnnotation]: "true" } } : {}) },
    provisioner,
    ...(extra.parameters === undefined ? {} : { parameters: extra.parameters }),
    reclaimPolicy: "Delete",
    volumeBindingMode: "WaitForFirstConsumer",
  };
}

/** What `kvol up` creates, in this order. */
export function defaultStorageClasses(): StorageClass[] {
  return [
    storageClass("standard", diskDriverName, { isDefault: true }),
    storageClass("shared", diskDriverName, { parameters: { [diskMultiAttachParameter]: "true" } }),
    storageClass("sim-disk", simDiskPluginName),
  ];
}

interface StorageBootstrapOutcome {
  /** The classes created now (none when the data directory had them created before). */
  created: string[];
}

/**
 * Creates the default classes unless this data directory already did (`ephemeral`: the store is
 * new at every start, so they are created every time), then records it.
 */
export async function bootstrapStorageClasses(
  client: Client,
  dataDir: DataDir,
  ephemeral: boolean,
): Promise<StorageBootstrapOutcome> {
  const marker = dataDir.file(storageClassesMarkerFileName);
  if (!ephemeral && existsSync(marker)) return { created: [] };
  const existing = await client.storageClasses.list();
  const hasDefault = existing.items.some((item) => item.metadata?.annotations?.[defaultClassAnnotation] === "true");
  const created: string[] = [];
  for (const wanted of defaultStorageClasses()) {
    const name = wanted.metadata?.name ?? "";
    if (existing.items.some((item) => item.metadata?.name === name)) continue;
    const object = hasDefault ? withoutDefaultAnnotation(wanted) : wanted;
    try {
      await client.storageClasses.create(object);
      created.push(name);
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }
  if (!ephemeral) writeFileSync(marker, `${created.join("\n")}\n`, { mode: privateFileMode });
  return { created };
}

function withoutDefaultAnnotation(item: StorageClass): StorageClass {
  const { annotations: _dropped, ...metadata } = item.metadata ?? {};
  return { ...item, metadata };
}
