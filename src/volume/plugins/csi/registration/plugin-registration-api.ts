/**
 * The kubelet plugin-registration API (k8s.io/kubelet `pluginregistration/v1`, spec csi-wire §3.3):
 * a registrar (node-driver-registrar) serves it on `<root>/plugins_registry/<driver>-reg.sock`;
 * the kubelet asks what the plugin is (GetInfo) and reports whether it registered it
 * (NotifyRegistrationStatus). Shapes are the decoded messages, camelCase as everywhere in kvol.
 */

export interface PluginInfo {
  /** `CSIPlugin` for a CSI driver. */
  type: string;
  /** The CSI driver name. */
  name: string;
  /** The host path of the driver's CSI socket; empty means the registration socket itself. */
  endpoint: string;
  /** CSI versions the driver speaks (`["1.0.0"]`). */
  supportedVersions: string[];
}

export interface RegistrationStatus {
  pluginRegistered: boolean;
  /** Why the plugin was not registered; empty on success. */
  error: string;
}

/** What a registrar serves. */
export interface PluginRegistrationService {
  getInfo(): Promise<PluginInfo>;
  notifyRegistrationStatus(status: RegistrationStatus): Promise<void>;
}

/** The kubelet's side of one registration socket; every call carries a deadline. */
export interface PluginRegistrationClient {
  getInfo(timeoutMs: number): Promise<PluginInfo>;
  notifyRegistrationStatus(status: RegistrationStatus, timeoutMs: number): Promise<void>;
  close(): void;
}
