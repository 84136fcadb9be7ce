/**
 * The kubelet CSI plugin's fixed values (pkg/volume/csi: csi_plugin.go, csi_mounter.go, csi_util.go,
 * and the kubelet plugin manager), each with its unit in its name. The per-call deadline
 * (csiTimeout, 2 min) is `Timers.csiTimeoutMs` in `api/timers.ts`, where scenarios can change it.
 */

/** Every message the plugin words itself starts with `kubernetes.io/csi: ` (Kubernetes' `log()`). */
export const csiMessagePrefix = "kubernetes.io/csi: ";

/** Mode of the directories the kubelet creates for CSI (pod volume parent, globalmount, block dirs). */
export const csiDirMode = 0o750;
/** `vol_data.json` is created with os.Create (0666 under the usual umask 022). */
export const csiVolumeDataFileMode = 0o644;

/** NodeStage/NodePublish `fs_type` that asks for a raw block volume (csi_block.go `fsTypeBlockName`). */
export const csiBlockFsType = "block";

/** `volumeLifecycleMode` values in `vol_data.json` and CSIDriver `spec.volumeLifecycleModes`. */
export const persistentLifecycleMode = "Persistent";
export const ephemeralLifecycleMode = "Ephemeral";

/** Keys of the pod information added to the volume context when CSIDriver `podInfoOnMount` is true. */
export const podInfoKey = {
  podName: "csi.storage.k8s.io/pod.name",
  podNamespace: "csi.storage.k8s.io/pod.namespace",
  podUID: "csi.storage.k8s.io/pod.uid",
  serviceAccountName: "csi.storage.k8s.io/serviceAccount.name",
  ephemeral: "csi.storage.k8s.io/ephemeral",
} as const;

// Plugin registration (pkg/kubelet/pluginmanager/operationexecutor/operation_generator.go).

/** `PluginInfo.type` of a CSI driver's registrar. */
export const csiPluginType = "CSIPlugin";
/** Deadline of `Registration/GetInfo`. */
export const registrationGetInfoTimeoutMs = 1_000;
/** Deadline of `Registration/NotifyRegistrationStatus`. */
export const registrationNotifyTimeoutMs = 5_000;
/** CSI spec versions a registrar announces (node-driver-registrar sends exactly this). */
export const registrarSupportedVersions: readonly string[] = ["1.0.0"];
/** The newest CSI major version this kubelet speaks; drivers offering only newer ones are refused. */
export const highestSupportedCsiMajorVersion = 1;
/** node-driver-registrar's `--timeout`: the deadline of its GetPluginInfo call to the driver. */
export const registrarOperationTimeoutMs = 1_000;
