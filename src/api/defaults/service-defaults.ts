/**
 * Service defaults (core/v1 `SetDefaults_Service`): a ClusterIP service without session affinity,
 * each port TCP and aimed at the same port on the pods.
 */
import type { KObject } from "../objects.ts";
import { type Fields, fillMissing, isRecord, updateList } from "./fill.ts";

function defaultPort(port: Fields): Fields {
  return fillMissing(port, { protocol: "TCP", targetPort: port.port });
}

export function defaultService(service: KObject): KObject {
  if (!isRecord(service.spec)) return service;
  const type = service.spec.type ?? "ClusterIP";
  let spec = fillMissing(service.spec, {
    type,
    sessionAffinity: "None",
    ...(type === "ExternalName" ? {} : { internalTrafficPolicy: "Cluster" }),
  });
  spec = updateList(spec, "ports", defaultPort);
  return spec === service.spec ? service : { ...service, spec };
}
