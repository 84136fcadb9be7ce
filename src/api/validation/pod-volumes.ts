/**
 * A pod's `spec.volumes` (core's ValidateVolumes): unique DNS-label names, exactly one source
 * each, and each source's own checks. The result maps every valid volume name to its source type,
 * which the container checks use to resolve volumeMounts and volumeDevices.
 */
import type { FieldCause } from "../errors.ts";
import { checkDnsLabel } from "./field-checks.ts";
import { duplicate, forbidden, invalid, required } from "./field-errors.ts";
import { child } from "./field-path.ts";
import { type JsonObject, readObject, readObjectList, readString } from "./json-reader.ts";
import { validateAnnotations, validateLabels } from "./labels.ts";
import { nameIsDnsSubdomain } from "./names.ts";
import { validatePersistentVolumeClaimSpec } from "./persistent-volume-claim.ts";
import {
  checkRequiredSourceFields,
  validateConfigMapVolume,
  validateCsiInline,
  validateDownwardApiVolume,
  validateEmptyDir,
  validateHostPath,
  validateNfs,
  validatePersistentVolumeClaimRef,
  validateProjectedVolume,
  validateRbd,
  validateSecretVolume,
} from "./volume-source-checks.ts";

/** Volume name → the type of its source (`persistentVolumeClaim`, `emptyDir`, ...). */
export type PodVolumes = ReadonlyMap<string, string>;

/** Pod volume source types, in the order Kubernetes checks them (the first one found wins). */
const podVolumeSourceTypes = [
  "emptyDir",
  "hostPath",
  "gitRepo",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "secret",
  "nfs",
  "iscsi",
  "glusterfs",
  "flocker",
  "persistentVolumeClaim",
  "rbd",
  "cinder",
  "cephfs",
  "quobyte",
  "downwardAPI",
  "fc",
  "flexVolume",
  "configMap",
  "azureFile",
  "vsphereVolume",
  "photonPersistentDisk",
  "portworxVolume",
  "azureDisk",
  "storageos",
  "projected",
  "scaleIO",
  "csi",
  "ephemeral",
] as const;

/** Sources that can back a raw block device (volumeDevices). */
export const claimSourceTypes: ReadonlySet<string> = new Set(["persistentVolumeClaim", "ephemeral"]);

type SourceCheck = (source: JsonObject, path: string, out: FieldCause[]) => void;

const sourceChecks: Readonly<Record<string, SourceCheck>> = {
  emptyDir: validateEmptyDir,
  hostPath: validateHostPath,
  secret: validateSecretVolume,
  nfs: validateNfs,
  persistentVolumeClaim: validatePersistentVolumeClaimRef,
  rbd: validateRbd,
  downwardAPI: validateDownwardApiVolume,
  configMap: validateConfigMapVolume,
  projected: validateProjectedVolume,
  csi: validateCsiInline,
};

/** Only labels and annotations may be set in an ephemeral volume's claim template metadata. */
function validateTemplateMetadata(value: unknown, path: string, out: FieldCause[]): void {
  const meta = readObject(value, path, out) ?? {};
  validateAnnotations(meta.annotations, child(path, "annotations"), out);
  validateLabels(meta.labels, child(path, "labels"), out);
  for (const field of Object.keys(meta).sort()) {
    if (field !== "labels" && field !== "annotations") out.push(forbidden(child(path, field), "cannot be set"));
  }
}

function validateEphemeral(source: JsonObject, path: string, out: FieldCause[]): void {
  const templatePath = child(path, "volumeClaimTemplate");
  const template = readObject(source.volumeClaimTemplate, templatePath, out);
  if (template === undefined) {
    out.push(required(templatePath));
    return;
  }
  validateTemplateMetadata(template.metadata, child(templatePath, "metadata"), out);
  const specPath = child(templatePath, "spec");
  validatePersistentVolumeClaimSpec(readObject(template.spec, specPath, out) ?? {}, specPath, out);
}

/** The claim an ephemeral volume creates is `<pod>-<volume>`, and that must be a valid claim name. */
function checkEphemeralClaimName(podName: string, volumeName: string, path: string, out: FieldCause[]): void {
  if (podName === "" || volumeName === "") return;
  const claimName = `${podName}-${volumeName}`;
  for (const problem of nameIsDnsSubdomain(claimName, false)) {
    out.push(invalid(child(path, "name"), volumeName, `PVC name "${claimName}": ${problem}`));
  }
}

/** Checks one volume's sources; returns the type of the first one, or undefined when there is none. */
function validateVolumeSource(
  volume: JsonObject,
  path: string,
  podName: string,
  out: FieldCause[],
): string | undefined {
  let sourceType: string | undefined;
  for (const type of podVolumeSourceTypes) {
    if (volume[type] === undefined || volume[type] === null) continue;
    if (sourceType !== undefined) {
      out.push(forbidden(child(path, type), "may not specify more than 1 volume type"));
      continue;
    }
    sourceType = type;
    const source = readObject(volume[type], child(path, type), out) ?? {};
    if (type === "ephemeral") {
      validateEphemeral(source, child(path, type), out);
      checkEphemeralClaimName(podName, typeof volume.name === "string" ? volume.name : "", path, out);
    } else {
      (sourceChecks[type] ?? ((s, p, o) => checkRequiredSourceFields(type, s, p, o)))(source, child(path, type), out);
    }
  }
  if (sourceType === undefined) out.push(required(path, "must specify a volume type"));
  return sourceType;
}

/**
 * Validates `spec.volumes` at `path`. `podName` (empty in templates) lets ephemeral volumes check
 * the name of the claim they will create.
 */
export function validatePodVolumes(value: unknown, path: string, podName: string, out: FieldCause[]): PodVolumes {
  const volumes = new Map<string, string>();
  const entries = readObjectList(value, path, out);
  const ephemeralClaims = new Set(
    entries
      .filter((entry) => entry.value.ephemeral !== undefined && podName !== "")
      .map((entry) => `${podName}-${String(entry.value.name)}`),
  );
  for (const { value: volume, path: volumePath } of entries) {
    const problems: FieldCause[] = [];
    const namePath = child(volumePath, "name");
    const name = readString(volume.name, namePath, problems) ?? "";
    const sourceType = validateVolumeSource(volume, volumePath, podName, problems);
    if (name === "") problems.push(required(namePath));
    else checkDnsLabel(name, namePath, problems);
    if (volumes.has(name)) problems.push(duplicate(namePath, name));
    // As in Kubernetes, a volume with problems is left out, so mounts of it are reported too.
    if (problems.length === 0 && sourceType !== undefined) volumes.set(name, sourceType);
    out.push(...problems);
    const claimName = readObject(volume.persistentVolumeClaim, "", [])?.claimName;
    if (typeof claimName === "string" && ephemeralClaims.has(claimName)) {
      out.push(
        invalid(
          child(volumePath, "persistentVolumeClaim", "claimName"),
          claimName,
          "must not reference a PVC that gets created for an ephemeral volume",
        ),
      );
    }
  }
  return volumes;
}
