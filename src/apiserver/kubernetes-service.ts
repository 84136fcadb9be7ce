/**
 * The `kubernetes` Service in `default` and its Endpoints, as kube-apiserver's bootstrap
 * controller keeps them: cluster IP 10.96.0.1 (the first address of the service range), port 443
 * named `https` aimed at the API server's own port, and Endpoints listing the address the API
 * server is reached at. Pods find the API there; `kubectl cluster-info` and `get svc` show it.
 * Written at start and corrected when the port changed since the last run; nothing else of a
 * user's change to other Services is touched.
 */
import { isNotFound } from "../api/errors.ts";
import type { Endpoints, KObject, Service } from "../api/objects.ts";
import { resourceForKind } from "../api/resources.ts";
import { kubernetesServiceIp } from "../api/store/create-strategies.ts";
import type { Store } from "../api/store/store.ts";

const kubernetesServiceName = "kubernetes";
const kubernetesServiceNamespace = "default";
/** The Service's port: clients in pods reach the API on 443 whatever port the server listens on. */
const kubernetesServicePort = 443;

interface ApiServerEndpoint {
  /** The address the API server is reached at (its advertise address). */
  ip: string;
  port: number;
}

function serviceFor(endpoint: ApiServerEndpoint): Service & KObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: kubernetesServiceName,
      namespace: kubernetesServiceNamespace,
      labels: { component: "apiserver", provider: "kubernetes" },
    },
    spec: {
      type: "ClusterIP",
      clusterIP: kubernetesServiceIp,
      ports: [{ name: "https", port: kubernetesServicePort, protocol: "TCP", targetPort: endpoint.port }],
      sessionAffinity: "None",
    },
  };
}

function endpointsFor(endpoint: ApiServerEndpoint): Endpoints & KObject {
  return {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: {
      name: kubernetesServiceName,
      namespace: kubernetesServiceNamespace,
      labels: { "endpointslice.kubernetes.io/skip-mirror": "true" },
    },
    subsets: [{ addresses: [{ ip: endpoint.ip }], ports: [{ name: "https", port: endpoint.port, protocol: "TCP" }] }],
  };
}

async function getOrUndefined(store: Store, kind: "Service" | "Endpoints"): Promise<KObject | undefined> {
  const type = resourceForKind(kind);
  if (type === undefined) throw new Error(`${kind} is not in the resource registry`);
  try {
    return await store.get<KObject>(type, kubernetesServiceNamespace, kubernetesServiceName);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

async function ensure(store: Store, wanted: KObject, differs: (current: KObject) => boolean): Promise<void> {
  const kind = wanted.kind as "Service" | "Endpoints";
  const type = resourceForKind(kind);
  if (type === undefined) throw new Error(`${kind} is not in the resource registry`);
  const current = await getOrUndefined(store, kind);
  if (current === undefined) {
    await store.create(type, wanted);
    return;
  }
  if (!differs(current)) return;
  const { metadata: _wantedMeta, ...rest } = wanted;
  const currentSpec = (current.spec ?? {}) as Record<string, unknown>;
  const wantedSpec = (wanted.spec ?? {}) as Record<string, unknown>;
  const merged = wanted.spec === undefined ? rest : { ...rest, spec: { ...currentSpec, ...wantedSpec } };
  await store.update(type, { ...current, ...merged, metadata: current.metadata });
}

/** Creates or corrects the `kubernetes` Service and Endpoints for an API server reached at `endpoint`. */
export async function reconcileKubernetesService(store: Store, endpoint: ApiServerEndpoint): Promise<void> {
  const service = serviceFor(endpoint);
  await ensure(store, service, (current) => {
    const port = (current.spec as Service["spec"])?.ports?.[0];
    return port?.port !== kubernetesServicePort || port.targetPort !== endpoint.port;
  });
  const endpoints = endpointsFor(endpoint);
  await ensure(store, endpoints, (current) => JSON.stringify(current.subsets) !== JSON.stringify(endpoints.subsets));
}
