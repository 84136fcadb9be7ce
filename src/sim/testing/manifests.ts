/**
 * The manifests the cluster tests apply, as YAML a user would write: a StorageClass, a claim, a
 * pod with one volume, the `web` StatefulSet and Deployment of the Kubernetes tutorials. Each
 * builder names only what its tests vary; everything else is the one spelling they all share.
 */

/** The provisioner of the simulated cloud disks. */
const simDiskProvisioner = "kvol.io/sim-disk";

export type VolumeBindingMode = "Immediate" | "WaitForFirstConsumer";

interface StorageClassOptions {
  /** Default `standard`. */
  name?: string;
  /** Default the sim-disk provisioner. */
  provisioner?: string;
  /** Default `WaitForFirstConsumer`. */
  bindingMode?: VolumeBindingMode;
  /** Left out (the API's default, Delete) unless given. */
  reclaimPolicy?: "Delete" | "Retain";
  parameters?: Readonly<Record<string, string>>;
}

/** `{ a: b, c: d }`: a YAML flow mapping. */
function flowMap(entries: Readonly<Record<string, string>>): string {
  return `{ ${Object.entries(entries)
    .map(([key, value]) => `${key}: ${value}`)
    .join(", ")} }`;
}

export function storageClassYaml(options: StorageClassOptions = {}): string {
  const { name = "standard", provisioner = simDiskProvisioner, bindingMode = "WaitForFirstConsumer" } = options;
  const parameters = options.parameters === undefined ? "" : `parameters: ${flowMap(options.parameters)}\n`;
  const reclaimPolicy = options.reclaimPolicy === undefined ? "" : `reclaimPolicy: ${options.reclaimPolicy}\n`;
  return `
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: { name: ${name} }
provisioner: ${provisioner}
${parameters}${reclaimPolicy}volumeBindingMode: ${bindingMode}
`;
}

interface ClaimOptions {
  /** Default `standard`. */
  storageClassName?: string;
  /** Default `1Gi`. */
  storage?: string;
}

/** A ReadWriteOnce claim in the default namespace. */
export function claimYaml(name: string, options: ClaimOptions = {}): string {
  const { storageClassName = "standard", storage = "1Gi" } = options;
  return `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: ${name} }
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: ${storageClassName}
  resources: { requests: { storage: ${storage} } }
`;
}

/** A busybox pod mounting the volume `data`, whose source is `volumeSource` (`nfs: {…}`), at /data. */
export function podYaml(name: string, volumeSource: string): string {
  return `
apiVersion: v1
kind: Pod
metadata: { name: ${name} }
spec:
  containers:
    - name: app
      image: busybox:1.36
      volumeMounts: [{ name: data, mountPath: /data }]
  volumes:
    - name: data
      ${volumeSource}
`;
}

export function podUsingClaimYaml(name: string, claimName: string): string {
  return podYaml(name, `persistentVolumeClaim: { claimName: ${claimName} }`);
}

interface WebStatefulSetOptions {
  /** Default 1. */
  replicas?: number;
  /** The class of the `www` claim template; default `standard`. */
  storageClassName?: string;
}

/** StatefulSet `web`: nginx serving from a 1Gi ReadWriteOnce claim `www-web-<ordinal>`. */
export function webStatefulSetYaml(options: WebStatefulSetOptions = {}): string {
  const { replicas = 1, storageClassName = "standard" } = options;
  return `
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: web }
spec:
  replicas: ${replicas}
  serviceName: nginx
  selector: { matchLabels: { app: nginx } }
  template:
    metadata: { labels: { app: nginx } }
    spec:
      containers:
        - name: nginx
          image: nginx:1.25
          volumeMounts: [{ name: www, mountPath: /usr/share/nginx/html }]
  volumeClaimTemplates:
    - metadata: { name: www }
      spec:
        accessModes: [ReadWriteOnce]
        storageClassName: ${storageClassName}
        resources: { requests: { storage: 1Gi } }
`;
}

interface WebDeploymentOptions {
  /** Default `nginx:1.25`. */
  image?: string;
  /** Default 1. */
  replicas?: number;
  /** Left out (the API's default, RollingUpdate) unless given. */
  strategy?: "RollingUpdate" | "Recreate";
  /** A claim the pods mount at /data; none unless given. */
  claimName?: string;
}

/** Deployment `web`: pods with one container `web`. */
export function webDeploymentYaml(options: WebDeploymentOptions = {}): string {
  const { image = "nginx:1.25", replicas = 1, strategy, claimName } = options;
  const strategyLine = strategy === undefined ? "" : `\n  strategy: { type: ${strategy} }`;
  const mount = claimName === undefined ? "" : "\n          volumeMounts: [{ name: data, mountPath: /data }]";
  const volumes =
    claimName === undefined
      ? ""
      : `      volumes: [{ name: data, persistentVolumeClaim: { claimName: ${claimName} } }]\n`;
  return `
apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: ${replicas}${strategyLine}
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers:
        - name: web
          image: "${image}"${mount}
${volumes}`;
}
