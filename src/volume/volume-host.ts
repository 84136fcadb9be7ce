/**
 * What a volume plugin gets from the component that runs it (Kubernetes' VolumeHost). The kubelet
 * gives the node side (`node`: the node's Host, the kubelet root directory, the Mounter); the
 * attach/detach controller runs the same plugins without a node, so node-only calls ask for
 * `requireNode` and fail clearly there.
 */
import type { ConfigMap, PersistentVolume, Pod, Secret } from "kubernetes-types/core/v1.js";
import type { Host } from "../host/host.ts";
import type { MountLogger } from "../host/mount/logger.ts";
import type { Mounter } from "../host/mount/mounter.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Rng } from "../runtime/rng.ts";

/** Where plugins write their log lines; the same shape the mount layer logs through. */
export type VolumeLogger = MountLogger;

/** A TokenRequest for a projected service account token. */
export interface ServiceAccountTokenRequest {
  namespace: string;
  serviceAccountName: string;
  audiences: string[];
  expirationSeconds: number;
  /** The pod the token is bound to. */
  podName: string;
  podUID: string;
}

/**
 * Reads the API objects plugins need. The kubelet provides it from its client and informer caches.
 * An absent object is `undefined` (the plugin words the not-found error, as Kubernetes' kubelet
 * managers do: `secret "x" not found`); any other failure throws.
 */
export interface VolumeApi {
  getSecret(namespace: string, name: string): Promise<Secret | undefined>;
  getConfigMap(namespace: string, name: string): Promise<ConfigMap | undefined>;
  getPod(namespace: string, name: string): Promise<Pod | undefined>;
  getPersistentVolume(name: string): Promise<PersistentVolume | undefined>;
  /** Issues a bound service account token; absent where no token issuer runs. */
  requestServiceAccountToken?(request: ServiceAccountTokenRequest): Promise<string>;
}

/** The node a kubelet runs on, as plugins see it. */
export interface NodeVolumeContext {
  /** The node's kernel and userland. */
  host: Host;
  nodeName: string;
  /** `--root-dir`, `/var/lib/kubelet` by default (see paths.ts). */
  rootDir: string;
  /** mount-utils over `host`: every mount and unmount goes through it. */
  mounter: Mounter;
  /**
   * The node's `status.allocatable` (`memory: 7Gi`, `cpu: "4"`): bounds a Memory emptyDir's tmpfs and
   * stands in for unset container limits in downward API files. Unknown when absent.
   */
  allocatable?: Readonly<Record<string, string>>;
}

export interface VolumeHost {
  readonly clock: Clock;
  /** Random choices plugins make (the atomic writer's directory suffix) come from this stream. */
  readonly rng: Rng;
  readonly logger: VolumeLogger;
  readonly api: VolumeApi;
  /** Present in the kubelet; absent in the attach/detach controller. */
  readonly node?: NodeVolumeContext;
}

/** The node side of `host`, or an error naming the plugin call that needed it. */
export function requireNode(host: VolumeHost, what: string): NodeVolumeContext {
  if (host.node === undefined) {
    throw new Error(`${what} runs on a node, but this volume host has no node (is it the attach/detach controller?)`);
  }
  return host.node;
}
