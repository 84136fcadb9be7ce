/**
 * Inline ephemeral volumes of hostpath.csi.kvol.io (csi-driver-host-path's ephemeral mode): the
 * kubelet publishes them without CreateVolume or NodeStageVolume, marking the volume context with
 * `csi.storage.k8s.io/ephemeral: "true"`. NodePublishVolume then creates the volume's directory
 * itself and binds it on the target; NodeUnpublishVolume deletes the directory again. Their data
 * lives under `<stateDir>/ephemeral/<volumeId>`, apart from provisioned volumes, so unpublish can
 * tell an ephemeral volume by its directory alone (the kubelet sends only the id and target).
 */
import { posix } from "node:path";
import type { Host } from "../../../host/host.ts";
import type { Mounter } from "../../../host/mount/mounter.ts";
import type { NodePublishVolumeRequest } from "../../proto/types.ts";
import { bindPublished } from "../common/bind-mount.ts";
import { volumeDirMode, volumeTreeEntriesMax } from "../common/constants.ts";
import { step } from "../common/host-failures.ts";
import { isPresent } from "../common/host-paths.ts";
import { removeTree } from "../common/volume-tree.ts";

/** The volume-context key the kubelet sets for an inline ephemeral volume. */
const ephemeralContextKey = "csi.storage.k8s.io/ephemeral";
const ephemeralSubdir = "ephemeral";

export function isEphemeralPublish(request: NodePublishVolumeRequest): boolean {
  return request.volumeContext[ephemeralContextKey] === "true";
}

export function ephemeralDataPath(stateDir: string, volumeId: string): string {
  return posix.join(stateDir, ephemeralSubdir, volumeId);
}

interface EphemeralNode {
  host: Host;
  mounter: Mounter;
  stateDir: string;
}

/** Creates the volume's directory (idempotently) and binds it on the target path. */
export async function publishEphemeral(
  node: EphemeralNode,
  request: NodePublishVolumeRequest,
  volumeId: string,
  targetPath: string,
): Promise<void> {
  const rpc = "NodePublishVolume";
  const dataPath = ephemeralDataPath(node.stateDir, volumeId);
  await step(`${rpc}: creating ${dataPath}`, () => node.host.mkdir(dataPath, volumeDirMode, { recursive: true }));
  await bindPublished(node.host, node.mounter, { rpc, source: dataPath, target: targetPath, block: false, request });
}

/** Deletes an ephemeral volume's directory after its target was unmounted; other volumes are left alone. */
export async function deleteEphemeral(node: EphemeralNode, volumeId: string): Promise<void> {
  const rpc = "NodeUnpublishVolume";
  const dataPath = ephemeralDataPath(node.stateDir, volumeId);
  if (!(await step(`${rpc}: checking ${dataPath}`, () => isPresent(node.host, dataPath)))) return;
  await step(`${rpc}: deleting ephemeral volume ${dataPath}`, () =>
    removeTree(node.host, dataPath, volumeTreeEntriesMax),
  );
}
