/**
 * The columns of `kubectl get services|endpoints|serviceaccounts`, as Kubernetes' printers lay
 * them out: a service's type, cluster IP, external IP and ports; the addresses an Endpoints object
 * lists (three at most, then "+ N more..."); the number of secrets a service account names.
 */
import type { Endpoints, Service, ServiceAccount } from "../objects.ts";
import { ageSince } from "./human-duration.ts";
import { ageColumn, column, nameColumn, noneText, type ObjectPrinter, unknownText } from "./table-types.ts";

/** kubectl shows at most this many endpoint addresses before "+ N more...". */
const endpointsShown = 3;

function externalIp(service: Service): string {
  const spec = service.spec ?? {};
  const external = spec.externalIPs ?? [];
  switch (spec.type ?? "ClusterIP") {
    case "ClusterIP":
    case "NodePort":
      return external.length > 0 ? external.join(",") : noneText;
    case "LoadBalancer": {
      const ingress = (service.status?.loadBalancer?.ingress ?? []).map((entry) => entry.ip ?? entry.hostname ?? "");
      const all = [...ingress.filter((value) => value !== ""), ...external];
      return all.length > 0 ? all.join(",") : "<pending>";
    }
    case "ExternalName":
      return spec.externalName ?? "";
    default:
      return unknownText;
  }
}

function portsText(service: Service): string {
  const ports = (service.spec?.ports ?? []).map((port) => {
    const protocol = port.protocol ?? "TCP";
    return port.nodePort ? `${port.port}:${port.nodePort}/${protocol}` : `${port.port}/${protocol}`;
  });
  return ports.length > 0 ? ports.join(",") : noneText;
}

function selectorText(selector: Readonly<Record<string, string>> | undefined): string {
  const pairs = Object.entries(selector ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`);
  return pairs.length > 0 ? pairs.join(",") : noneText;
}

export const servicePrinter: ObjectPrinter<Service> = {
  columns: [
    nameColumn,
    column("Type", "type determines how the Service is exposed."),
    column("Cluster-IP", "clusterIP is the IP address of the service and is usually assigned randomly."),
    column(
      "External-IP",
      "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.",
    ),
    column("Port(s)", "The list of ports that are exposed by this service."),
    ageColumn,
    column("Selector", "Route service traffic to pods with label keys and values matching this selector.", {
      priority: 1,
    }),
  ],
  row(service, nowMs) {
    return {
      cells: [
        service.metadata?.name ?? "",
        service.spec?.type ?? "ClusterIP",
        service.spec?.clusterIPs?.[0] ?? service.spec?.clusterIP ?? noneText,
        externalIp(service),
        portsText(service),
        ageSince(service.metadata?.creationTimestamp, nowMs),
        selectorText(service.spec?.selector),
      ],
    };
  },
};

/** `10.0.0.1:443,10.0.0.2:443 + 2 more...`: each ready address with each port. */
function endpointsText(endpoints: Endpoints): string {
  const all: string[] = [];
  for (const subset of endpoints.subsets ?? []) {
    const ports = subset.ports ?? [];
    for (const address of subset.addresses ?? []) {
      if (ports.length === 0) all.push(address.ip);
      for (const port of ports) all.push(`${address.ip}:${port.port}`);
    }
  }
  if (all.length === 0) return noneText;
  const shown = all.slice(0, endpointsShown).join(",");
  return all.length > endpointsShown ? `${shown} + ${all.length - endpointsShown} more...` : shown;
}

export const endpointsPrinter: ObjectPrinter<Endpoints> = {
  columns: [nameColumn, column("Endpoints", "The set of all endpoints is the union of all subsets."), ageColumn],
  row(endpoints, nowMs) {
    return {
      cells: [
        endpoints.metadata?.name ?? "",
        endpointsText(endpoints),
        ageSince(endpoints.metadata?.creationTimestamp, nowMs),
      ],
    };
  },
};

export const serviceAccountPrinter: ObjectPrinter<ServiceAccount> = {
  columns: [
    nameColumn,
    column(
      "Secrets",
      "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.",
      { type: "integer" },
    ),
    ageColumn,
  ],
  row(account, nowMs) {
    return {
      cells: [
        account.metadata?.name ?? "",
        (account.secrets ?? []).length,
        ageSince(account.metadata?.creationTimestamp, nowMs),
      ],
    };
  },
};
