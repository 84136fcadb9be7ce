/**
 * A container's environment as the kubelet makes it (kubelet_pods.go makeEnvironmentVariables):
 * `envFrom` first, configMaps and secrets in order, each key with its prefix; then `env`, in order,
 * each value either literal with `$(VAR)` references to the variables before it expanded, or from
 * a source — a configMap or secret key, a pod field (fieldRef), a container resource
 * (resourceFieldRef). A later name replaces an earlier one. Then `$(VAR)` in command and args is
 * expanded against the result.
 *
 * A configMap or secret that does not exist, or a key missing from it, stops the container from
 * being created (CreateContainerConfigError, with Kubernetes' messages) unless the reference is
 * `optional`. envFrom keys that are not valid variable names are skipped, with the pod's Warning
 * event InvalidEnvironmentVariableNames (the strict name rule of Kubernetes 1.31; 1.32 and later
 * accept any printable name by default).
 */
import type { ConfigMap, Container, EnvVar, Pod, Secret } from "kubernetes-types/core/v1.js";
import { errorMessage } from "../../runtime/error-message.ts";
import { extractFieldPathAsString } from "../../volume/plugins/downwardapi/field-path.ts";
import { extractResourceValue } from "../../volume/plugins/downwardapi/resource-field.ts";
import { expandVars, lookupIn } from "./var-expansion.ts";

/** Where the kubelet reads configMaps and secrets (its configMap and secret managers). */
export interface EnvObjectSource {
  getConfigMap(namespace: string, name: string): Promise<ConfigMap | undefined>;
  getSecret(namespace: string, name: string): Promise<Secret | undefined>;
}

export interface EnvContext {
  source: EnvObjectSource;
  /** The pod's IP (status.podIP); the node's address while pods share the node's network. */
  podIP: string;
  hostIP: string;
  /** What an unset limit reads as in resourceFieldRef. */
  nodeAllocatable: Readonly<Record<string, string>> | undefined;
  /** Reports the InvalidEnvironmentVariableNames warning for the pod. */
  invalidNames(message: string): void;
}

/** The container cannot be configured yet (CreateContainerConfigError); the next sync tries again. */
export class ContainerConfigError extends Error {
  readonly reason = "CreateContainerConfigError";
  constructor(message: string) {
    super(message);
    this.name = "ContainerConfigError";
  }
}

/** Kubernetes' IsEnvVarName: letters, digits, `_`, `-`, `.`, not starting with a digit, not `.` or `..`. */
const envVarNamePattern = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

function isEnvVarName(name: string): boolean {
  return envVarNamePattern.test(name) && name !== "." && name !== ".." && !name.startsWith("..");
}

type Kind = "configMap" | "secret";

/** The data of each configMap and secret the container refers to (secrets decoded); undefined: not found. */
type ObjectData = ReadonlyMap<string, Record<string, string> | undefined>;

function objectKey(kind: Kind, name: string): string {
  return `${kind}/${name}`;
}

/** Every configMap and secret the container's env and envFrom refer to. */
function referencedObjects(container: Container): { kind: Kind; name: string }[] {
  const refs = new Map<string, { kind: Kind; name: string }>();
  const add = (kind: Kind, name: string | undefined) =>
    refs.set(objectKey(kind, name ?? ""), { kind, name: name ?? "" });
  for (const from of container.envFrom ?? []) {
    if (from.configMapRef !== undefined) add("configMap", from.configMapRef.name);
    else if (from.secretRef !== undefined) add("secret", from.secretRef.name);
  }
  for (const entry of container.env ?? []) {
    if (entry.value !== undefined && entry.value !== "") continue;
    if (entry.valueFrom?.configMapKeyRef !== undefined) add("configMap", entry.valueFrom.configMapKeyRef.name);
    else if (entry.valueFrom?.secretKeyRef !== undefined) add("secret", entry.valueFrom.secretKeyRef.name);
  }
  return [...refs.values()];
}

/** Reads each object once; an API server that cannot answer leaves the container waiting as for a missing one. */
async function fetchObjects(source: EnvObjectSource, namespace: string, container: Container): Promise<ObjectData> {
  const data = new Map<string, Record<string, string> | undefined>();
  for (const { kind, name } of referencedObjects(container)) {
    try {
      const found =
        kind === "configMap"
          ? (await source.getConfigMap(namespace, name))?.data
          : decodeSecret(await source.getSecret(namespace, name));
      data.set(objectKey(kind, name), found === undefined ? undefined : { ...found });
    } catch (error) {
      throw new ContainerConfigError(errorMessage(error));
    }
  }
  return data;
}

function decodeSecret(secret: Secret | undefined): Record<string, string> | undefined {
  if (secret === undefined) return undefined;
  const data: Record<string, string> = {};
  for (const [key, encoded] of Object.entries(secret.data ?? {})) {
    data[key] = Buffer.from(encoded, "base64").toString("utf8");
  }
  return data;
}

/** `configmap "x" not found` / `secret "x" not found`: the kubelet's watch-based managers' wording. */
function notFoundMessage(kind: Kind, name: string): string {
  return `${kind === "configMap" ? "configmap" : "secret"} "${name}" not found`;
}

function missingKeyMessage(kind: Kind, key: string, namespace: string, name: string): string {
  return `couldn't find key ${key} in ${kind === "configMap" ? "ConfigMap" : "Secret"} ${namespace}/${name}`;
}

function addEnvFrom(
  pod: Pod,
  container: Container,
  objects: ObjectData,
  env: Map<string, string>,
  context: EnvContext,
): void {
  const namespace = pod.metadata?.namespace ?? "";
  for (const from of container.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    if (ref === undefined) continue;
    const kind: Kind = from.configMapRef !== undefined ? "configMap" : "secret";
    const name = ref.name ?? "";
    const data = objects.get(objectKey(kind, name));
    if (data === undefined) {
      if (ref.optional === true) continue;
      throw new ContainerConfigError(notFoundMessage(kind, name));
    }
    const invalid: string[] = [];
    for (const [key, value] of Object.entries(data)) {
      const variable = `${from.prefix ?? ""}${key}`;
      if (!isEnvVarName(variable)) {
        invalid.push(variable);
        continue;
      }
      env.set(variable, value);
    }
    if (invalid.length > 0) {
      context.invalidNames(
        `Keys [${invalid.sort().join(", ")}] from the EnvFrom ${kind} ${namespace}/${name} were skipped since they are considered invalid environment variable names.`,
      );
    }
  }
}

/** The value of one `env` entry from its source; undefined when an optional source is missing. */
function valueFrom(
  pod: Pod,
  container: Container,
  entry: EnvVar,
  objects: ObjectData,
  context: EnvContext,
): string | undefined {
  const from = entry.valueFrom;
  if (from === undefined) return "";
  const keyRef = from.configMapKeyRef ?? from.secretKeyRef;
  if (keyRef !== undefined) {
    const kind: Kind = from.configMapKeyRef !== undefined ? "configMap" : "secret";
    const name = keyRef.name ?? "";
    const data = objects.get(objectKey(kind, name));
    if (data === undefined) {
      if (keyRef.optional === true) return undefined;
      throw new ContainerConfigError(notFoundMessage(kind, name));
    }
    const value = data[keyRef.key];
    if (value !== undefined) return value;
    if (keyRef.optional === true) return undefined;
    throw new ContainerConfigError(missingKeyMessage(kind, keyRef.key, pod.metadata?.namespace ?? "", name));
  }
  try {
    if (from.fieldRef !== undefined) return podFieldValue(pod, from.fieldRef.fieldPath, context);
    if (from.resourceFieldRef !== undefined) {
      const selector = {
        ...from.resourceFieldRef,
        containerName: from.resourceFieldRef.containerName || container.name,
      };
      return extractResourceValue(selector, pod, context.nodeAllocatable);
    }
  } catch (error) {
    throw new ContainerConfigError(errorMessage(error));
  }
  return "";
}

/** podFieldSelectorRuntimeValue: the fields the kubelet answers itself, then the pod's metadata. */
function podFieldValue(pod: Pod, fieldPath: string, context: EnvContext): string {
  switch (fieldPath) {
    case "spec.nodeName":
      return pod.spec?.nodeName ?? "";
    case "spec.serviceAccountName":
      return pod.spec?.serviceAccountName ?? "";
    case "status.hostIP":
    case "status.hostIPs":
      return context.hostIP;
    case "status.podIP":
    case "status.podIPs":
      return context.podIP;
    default:
      return extractFieldPathAsString(pod, fieldPath);
  }
}

/** The container's variables, in the order they were first defined. */
function environmentWith(
  pod: Pod,
  container: Container,
  objects: ObjectData,
  context: EnvContext,
): { name: string; value: string }[] {
  const env = new Map<string, string>();
  addEnvFrom(pod, container, objects, env, context);
  for (const entry of container.env ?? []) {
    const value =
      entry.value !== undefined && entry.value !== ""
        ? expandVars(entry.value, lookupIn(env))
        : valueFrom(pod, container, entry, objects, context);
    if (value !== undefined) env.set(entry.name, value);
  }
  return [...env].map(([name, value]) => ({ name, value }));
}

export async function makeEnvironmentVariables(
  pod: Pod,
  container: Container,
  context: EnvContext,
): Promise<{ name: string; value: string }[]> {
  const objects = await fetchObjects(context.source, pod.metadata?.namespace ?? "", container);
  return environmentWith(pod, container, objects, context);
}

function configured(pod: Pod, container: Container, objects: ObjectData, context: EnvContext): Container {
  const env = environmentWith(pod, container, objects, context);
  const lookup = lookupIn(new Map(env.map(({ name, value }) => [name, value])));
  const { envFrom: _envFrom, ...rest } = container;
  return {
    ...rest,
    env,
    ...(container.command === undefined ? {} : { command: container.command.map((arg) => expandVars(arg, lookup)) }),
    ...(container.args === undefined ? {} : { args: container.args.map((arg) => expandVars(arg, lookup)) }),
  };
}

/**
 * The container as the runtime runs it: its environment resolved into literal `env` values (no
 * envFrom left) and `$(VAR)` in command and args expanded. Synchronous when the container refers
 * to no configMap or secret, so a simulated node's timeline is not reordered by needless waits.
 */
export function resolveContainerEnvironment(
  pod: Pod,
  container: Container,
  context: EnvContext,
): Container | Promise<Container> {
  if (referencedObjects(container).length === 0) return configured(pod, container, new Map(), context);
  return fetchObjects(context.source, pod.metadata?.namespace ?? "", container).then((objects) =>
    configured(pod, container, objects, context),
  );
}
