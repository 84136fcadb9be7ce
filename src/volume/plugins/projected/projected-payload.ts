/**
 * The files of a projected volume (Kubernetes' projected collectData): secrets, configMaps, downward
 * API items and service account tokens merged into one directory. Every source is tried; the errors
 * are reported together, as Kubernetes aggregates them.
 */
import type {
  Pod,
  ProjectedVolumeSource,
  ServiceAccountTokenProjection,
  VolumeProjection,
} from "kubernetes-types/core/v1.js";
import type { FileProjection } from "../../atomic-writer.ts";
import type { MounterArgs } from "../../plugin.ts";
import type { VolumeApi } from "../../volume-host.ts";
import { aggregateError, defaultProjectedFileMode } from "../atomic-volume/atomic-volume.ts";
import { fetchConfigMap, makeConfigMapPayload } from "../configmap/config-map-payload.ts";
import { collectDownwardApiData } from "../downwardapi/downward-api-payload.ts";
import { fetchSecret, makeSecretPayload } from "../secret/secret-payload.ts";

/** A token's lifetime when the projection does not say (the API's default for expirationSeconds). */
const defaultTokenExpirationSeconds = 3600;
/** Tokens are readable only by their owner when the pod sets fsUser/fsGroup (ownership then opens them up). */
const tokenModeWithOwnership = 0o600;

interface ProjectionContext {
  api: VolumeApi;
  pod: Pod;
  volumeName: string;
  nodeAllocatable: Readonly<Record<string, string>> | undefined;
  args: MounterArgs;
}

async function serviceAccountTokenFile(
  projection: ServiceAccountTokenProjection,
  context: ProjectionContext,
  defaultMode: number,
): Promise<FileProjection> {
  const { api, pod } = context;
  if (api.requestServiceAccountToken === undefined) {
    throw new Error(`cannot setup projected volume ${context.volumeName} because no token issuer is configured`);
  }
  const token = await api.requestServiceAccountToken({
    namespace: pod.metadata?.namespace ?? "default",
    serviceAccountName: pod.spec?.serviceAccountName ?? "default",
    audiences: projection.audience ? [projection.audience] : [],
    expirationSeconds: projection.expirationSeconds ?? defaultTokenExpirationSeconds,
    podName: pod.metadata?.name ?? "",
    podUID: pod.metadata?.uid ?? "",
  });
  const ownershipRequested = context.args.fsUser !== undefined || context.args.fsGroup !== undefined;
  return { data: Buffer.from(token, "utf8"), mode: ownershipRequested ? tokenModeWithOwnership : defaultMode };
}

async function projectionFiles(
  projection: VolumeProjection,
  context: ProjectionContext,
  defaultMode: number,
): Promise<Map<string, FileProjection>> {
  const namespace = context.pod.metadata?.namespace ?? "default";
  if (projection.secret !== undefined) {
    const { items, name = "", optional = false } = projection.secret;
    const secret = await fetchSecret(context.api, namespace, name, optional);
    return makeSecretPayload(items, secret, defaultMode, optional);
  }
  if (projection.configMap !== undefined) {
    const { items, name = "", optional = false } = projection.configMap;
    const configMap = await fetchConfigMap(context.api, namespace, name, optional);
    return makeConfigMapPayload(items, configMap, defaultMode, optional);
  }
  if (projection.downwardAPI !== undefined) {
    return collectDownwardApiData(projection.downwardAPI.items, context.pod, context.nodeAllocatable, defaultMode);
  }
  if (projection.serviceAccountToken !== undefined) {
    const file = await serviceAccountTokenFile(projection.serviceAccountToken, context, defaultMode);
    return new Map([[projection.serviceAccountToken.path, file]]);
  }
  if (projection.clusterTrustBundle !== undefined) {
    throw new Error(`projected volume ${context.volumeName}: clusterTrustBundle sources are not supported`);
  }
  return new Map();
}

export async function collectProjectedData(
  source: ProjectedVolumeSource,
  context: ProjectionContext,
): Promise<Map<string, FileProjection>> {
  const defaultMode = source.defaultMode ?? defaultProjectedFileMode;
  const payload = new Map<string, FileProjection>();
  const errors: Error[] = [];
  for (const projection of source.sources ?? []) {
    try {
      for (const [path, file] of await projectionFiles(projection, context, defaultMode)) payload.set(path, file);
    } catch (err) {
      errors.push(err instanceof Error ? err : new Error(String(err)));
    }
  }
  const failure = aggregateError(errors);
  if (failure !== undefined) throw failure;
  return payload;
}
