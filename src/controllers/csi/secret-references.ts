/**
 * The secrets a StorageClass names through reserved parameters (external-provisioner
 * `getSecretReference`): `csi.storage.k8s.io/<op>-secret-name` and `-namespace`, both or neither,
 * each a template. Names may use `${pv.name}`, `${pvc.namespace}`, `${pvc.name}` and
 * `${pvc.annotations['<key>']}`; namespaces `${pv.name}` and `${pvc.namespace}`.
 */
import type { PersistentVolumeClaim, SecretReference } from "kubernetes-types/core/v1.js";
import { goQuote } from "../../runtime/go-quote.ts";
import { csiParameterPrefix } from "./storage-class-parameters.ts";

/** One operation's secret: its label in messages and the two parameter keys. */
export interface SecretParameterKeys {
  label: string;
  nameKey: string;
  namespaceKey: string;
}

export function secretKeys(label: string, operation: string): SecretParameterKeys {
  return {
    label,
    nameKey: `${csiParameterPrefix}${operation}-secret-name`,
    namespaceKey: `${csiParameterPrefix}${operation}-secret-namespace`,
  };
}

export const provisionerSecretKeys = secretKeys("Provisioner", "provisioner");
export const controllerPublishSecretKeys = secretKeys("ControllerPublish", "controller-publish");
export const nodeStageSecretKeys = secretKeys("NodeStage", "node-stage");
export const nodePublishSecretKeys = secretKeys("NodePublish", "node-publish");
export const controllerExpandSecretKeys = secretKeys("ControllerExpand", "controller-expand");
export const nodeExpandSecretKeys = secretKeys("NodeExpand", "node-expand");

const templateToken = /\$\{([^}]*)\}/g;
const annotationToken = /^pvc\.annotations\['(.+)'\]$/;
const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const maxLabelLength = 63;
const maxSubdomainLength = 253;

/**
 * The Secret the class names for `keys`, with templates filled in from the claim and the PV name;
 * undefined when the class names none.
 */
export function secretReferenceFor(
  keys: SecretParameterKeys,
  parameters: Readonly<Record<string, string>>,
  pvName: string,
  claim: PersistentVolumeClaim,
): SecretReference | undefined {
  const claimNamespace = claim.metadata?.namespace ?? "";
  return resolveSecretReference(keys, parameters, {
    namespaceValues: { "pv.name": pvName, "pvc.namespace": claimNamespace },
    nameValues: { "pv.name": pvName, "pvc.namespace": claimNamespace, "pvc.name": claim.metadata?.name ?? "" },
    annotations: claim.metadata?.annotations ?? {},
  });
}

/** The tokens a secret's namespace and name templates may use, and their values. */
interface TemplateValues {
  namespaceValues: Readonly<Record<string, string>>;
  nameValues: Readonly<Record<string, string>>;
  /** For `${pvc.annotations['<key>']}` (provisioner templates only). */
  annotations?: Readonly<Record<string, string>>;
}

/**
 * The Secret that `parameters` name for `keys`, its templates filled from `values`; undefined when
 * they name none. The snapshotter resolves its secrets the same way with its own tokens.
 */
export function resolveSecretReference(
  keys: SecretParameterKeys,
  parameters: Readonly<Record<string, string>>,
  values: TemplateValues,
): SecretReference | undefined {
  const nameTemplate = parameters[keys.nameKey];
  const namespaceTemplate = parameters[keys.namespaceKey];
  if (nameTemplate === undefined && namespaceTemplate === undefined) return undefined;
  if (nameTemplate === undefined || namespaceTemplate === undefined) {
    throw templateError(`either name and namespace for ${keys.label} secrets specified, Both must be specified`);
  }
  if (nameTemplate === "" || namespaceTemplate === "") {
    throw templateError(`${keys.label} secrets specified in parameters but value of either namespace or name is empty`);
  }
  const namespace = resolveTemplate(namespaceTemplate, values.namespaceValues);
  checkResolved(namespaceTemplate, namespace, "namespace", isNamespaceName);
  const name = resolveTemplate(nameTemplate, values.nameValues, values.annotations ?? {});
  checkResolved(nameTemplate, name, "name", isSecretName);
  return { namespace, name };
}

function templateError(message: string): Error {
  return new Error(`failed to get name and namespace template from params: ${message}`);
}

/** Replaces every `${token}`; an unknown token is an error naming all unknown ones. */
function resolveTemplate(
  template: string,
  values: Readonly<Record<string, string>>,
  annotations: Readonly<Record<string, string>> = {},
): string {
  const invalid: string[] = [];
  const resolved = template.replace(templateToken, (whole, token: string) => {
    if (Object.hasOwn(values, token)) return values[token] ?? "";
    const annotationKey = annotationToken.exec(token)?.[1];
    if (annotationKey !== undefined && Object.hasOwn(annotations, annotationKey))
      return annotations[annotationKey] ?? "";
    invalid.push(token);
    return whole;
  });
  if (invalid.length > 0) {
    throw new Error(`error resolving value ${goQuote(template)}: invalid tokens: [${invalid.map(goQuote).join(" ")}]`);
  }
  return resolved;
}

function checkResolved(template: string, value: string, what: string, isValid: (text: string) => boolean): void {
  if (isValid(value)) return;
  if (template !== value) {
    throw new Error(`${goQuote(template)} resolved to ${goQuote(value)} which is not a valid secret ${what}`);
  }
  throw new Error(`${goQuote(template)} is not a valid secret ${what}`);
}

function isNamespaceName(text: string): boolean {
  return text.length <= maxLabelLength && dns1123Label.test(text);
}

function isSecretName(text: string): boolean {
  return text.length <= maxSubdomainLength && dns1123Subdomain.test(text);
}
