/**
 * Re-establishing a fuse node plugin's mounts after it restarted (seed 003's fix, spec §8.3).
 *
 * The daemons died with the old plugin container; their kernel mounts stayed and answer ENOTCONN.
 * From the API the plugin learns which mounts it served on this node — PVs of its driver, the
 * claims bound to them, the pods on this node using those claims — and so the paths kubelet made:
 * the staging path `plugins/kubernetes.io/csi/<driver>/<sha256(handle)>/globalmount` and each pod's
 * `pods/<uid>/volumes/kubernetes.io~csi/<pv>/mount`. Every one of those that the mount table still
 * lists but that no longer answers is unmounted and served again: staging paths by a fresh daemon,
 * pod paths by a fresh bind mount (read-only if it was). Paths kubelet has not mounted, or that
 * still work, are left alone, so running the repair twice changes nothing.
 *
 * What this cannot reach: a running container keeps its own view of the old, dead mount. Kubelet
 * must publish again (or the pod restart) for the container to see the repaired one — in seed 003
 * a livenessProbe restart did it.
 */
import { objectKey, type PersistentVolume, type Pod } from "../../../api/objects.ts";
import { csiPublishTargetPath, csiStagingPath } from "../../../volume/paths.ts";
import { internalFailure } from "../common/host-failures.ts";
import { isReadOnlyMount, type MountState, mountStateAt } from "../common/mount-state.ts";
import type { FuseNode, ServeOutcome } from "./fuse-node.ts";
import type { FuseRecoveryApi } from "./recovery-api.ts";

/** One volume this node serves according to the API, and the paths kubelet uses for it. */
interface ServedVolume {
  volumeId: string;
  pvName: string;
  /** Empty when the driver does not stage. */
  stagingPath: string;
  targetPaths: string[];
}

export interface ReestablishReport {
  /** Paths whose dead mount was replaced by a working one. */
  repaired: string[];
  /** Paths that could not be repaired, with why. */
  failed: Array<{ path: string; message: string }>;
}

interface ReestablishContext {
  api: FuseRecoveryApi;
  driverName: string;
  nodeName: string;
  kubeletRootDir: string;
}

/** The volumes of `driverName` that pods on `nodeName` use, from PVs, claims and pods. */
export async function servedVolumes(context: ReestablishContext, stages: boolean): Promise<ServedVolume[]> {
  const { api, driverName, nodeName, kubeletRootDir } = context;
  const [volumes, claims, pods] = await Promise.all([
    api.listPersistentVolumes(),
    api.listPersistentVolumeClaims(),
    api.listPodsOnNode(nodeName),
  ]);
  const ours = new Map(
    volumes.filter((pv) => pv.spec?.csi?.driver === driverName).map((pv) => [pv.metadata?.name, pv]),
  );
  const boundVolumeOfClaim = new Map(claims.map((claim) => [objectKey(claim), claim.spec?.volumeName]));
  const served = new Map<string, ServedVolume>();
  for (const pod of pods) {
    for (const pvName of claimedVolumeNames(pod, boundVolumeOfClaim)) {
      const pv = ours.get(pvName);
      const uid = pod.metadata?.uid;
      if (pv === undefined || uid === undefined) continue;
      const entry = served.get(pvName) ?? newServedVolume(pv, pvName, stages, context);
      entry.targetPaths.push(csiPublishTargetPath(kubeletRootDir, uid, pvName));
      served.set(pvName, entry);
    }
  }
  return [...served.values()];
}

/** Repairs every dead mount of the served volumes; never throws for one path's failure. */
export async function reestablishMounts(node: FuseNode, volumes: readonly ServedVolume[]): Promise<ReestablishReport> {
  const report: ReestablishReport = { repaired: [], failed: [] };
  for (const volume of volumes) {
    if (volume.stagingPath !== "") {
      await repairPath(node, volume.stagingPath, report, () =>
        node.serveWithDaemon(volume.volumeId, volume.stagingPath, "staging_target_path", "NodeStageVolume"),
      );
    }
    for (const targetPath of volume.targetPaths) {
      await repairPath(node, targetPath, report, (state) =>
        node.publish(volume.volumeId, volume.stagingPath, targetPath, isReadOnlyMount(state.entry), []),
      );
    }
  }
  return report;
}

type CorruptedState = Extract<MountState, { kind: "corrupted" }>;

async function repairPath(
  node: FuseNode,
  path: string,
  report: ReestablishReport,
  repair: (state: CorruptedState) => Promise<ServeOutcome>,
): Promise<void> {
  try {
    const state = await mountStateAt(node.options.host, path);
    if (state.kind !== "corrupted") return;
    await repair(state);
    report.repaired.push(path);
  } catch (error) {
    report.failed.push({ path, message: internalFailure(`re-establishing ${path}`, error).statusMessage });
  }
}

function newServedVolume(
  pv: PersistentVolume,
  pvName: string,
  stages: boolean,
  context: ReestablishContext,
): ServedVolume {
  const volumeId = pv.spec?.csi?.volumeHandle ?? "";
  return {
    volumeId,
    pvName,
    stagingPath: stages ? csiStagingPath(context.kubeletRootDir, context.driverName, volumeId) : "",
    targetPaths: [],
  };
}

/** The PV names the pod's claims are bound to. */
function claimedVolumeNames(pod: Pod, boundVolumeOfClaim: ReadonlyMap<string, string | undefined>): string[] {
  const namespace = pod.metadata?.namespace ?? "default";
  return (pod.spec?.volumes ?? [])
    .map((volume) => volume.persistentVolumeClaim?.claimName)
    .map((claimName) =>
      claimName === undefined
        ? undefined
        : boundVolumeOfClaim.get(objectKey({ metadata: { namespace, name: claimName } })),
    )
    .filter((pvName): pvName is string => pvName !== undefined && pvName !== "");
}
