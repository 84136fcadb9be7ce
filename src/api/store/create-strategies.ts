/**
 * What kube-apiserver's registry fills in on create for some kinds, once the object has its uid:
 * - Job (`generateSelector`): unless `spec.manualSelector`, a selector on the job's uid and the
 *   labels its pods carry (`batch.kubernetes.io/controller-uid`, `batch.kubernetes.io/job-name`
 *   and their legacy short forms).
 * - Service: a cluster IP from the service range when none is asked for (the first address of
 *   the range is the `kubernetes` Service's), and the IP family fields.
 */
import type { KindName, KObject } from "../objects.ts";

/** kubeadm's default service range, 10.96.0.0/12. */
const serviceRangeBase = [10, 96, 0, 0] as const;
const serviceRangeSize = 2 ** 20;
/** The `kubernetes` Service always holds the first address of the range. */
export const kubernetesServiceIp = "10.96.0.1";
const jobControllerUidLabel = "batch.kubernetes.io/controller-uid";
const jobNameLabel = "batch.kubernetes.io/job-name";
const legacyControllerUidLabel = "controller-uid";
const legacyJobNameLabel = "job-name";

type Fields = Record<string, unknown>;

function isRecord(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function generateJobSelector(job: KObject): void {
  const spec = job.spec;
  if (!isRecord(spec) || spec.manualSelector === true) return;
  const uid = job.metadata?.uid ?? "";
  const name = job.metadata?.name ?? "";
  const template = isRecord(spec.template) ? spec.template : {};
  const metadata = isRecord(template.metadata) ? template.metadata : {};
  const labels = isRecord(metadata.labels) ? metadata.labels : {};
  const podLabels = {
    ...labels,
    [jobControllerUidLabel]: uid,
    [jobNameLabel]: name,
    [legacyControllerUidLabel]: uid,
    [legacyJobNameLabel]: name,
  };
  job.spec = {
    ...spec,
    selector: { matchLabels: { [jobControllerUidLabel]: uid } },
    template: { ...template, metadata: { ...metadata, labels: podLabels } },
  };
}

/** An address of the service range picked from the uid: random like Kubernetes' allocator, stable per object. */
function clusterIpFor(uid: string): string {
  let hash = 0;
  for (const char of uid) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  // Skip the network address and the `kubernetes` Service's, and the broadcast address at the end.
  const offset = 2 + (hash % (serviceRangeSize - 3));
  const [a, b] = serviceRangeBase;
  return `${a}.${b + Math.trunc(offset / 65536)}.${Math.trunc(offset / 256) % 256}.${offset % 256}`;
}

function allocateClusterIp(service: KObject): void {
  const spec = service.spec;
  if (!isRecord(spec) || spec.type === "ExternalName") return;
  const requested = typeof spec.clusterIP === "string" ? spec.clusterIP : "";
  const ip = requested === "" ? clusterIpFor(service.metadata?.uid ?? "") : requested;
  const families = ip === "None" ? {} : { ipFamilies: ["IPv4"], ipFamilyPolicy: "SingleStack" };
  service.spec = { ...spec, clusterIP: ip, clusterIPs: [ip], ...families };
}

const strategies: Partial<Record<KindName, (object: KObject) => void>> = {
  Job: generateJobSelector,
  Service: allocateClusterIp,
};

/** Fills in the kind's server-side fields on a freshly prepared (mutable) object. */
export function completeForCreate(kind: KindName, object: KObject): void {
  strategies[kind]?.(object);
}
