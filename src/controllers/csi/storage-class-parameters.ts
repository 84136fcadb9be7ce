/**
 * StorageClass parameters as external-provisioner reads them. Keys under `csi.storage.k8s.io/` are
 * the provisioner's own (filesystem type, secret references) and never reach the driver; an
 * unknown key under that prefix is an error. Every other parameter is passed to CreateVolume as
 * it is, including the deprecated `fsType`, which also sets the filesystem type.
 */
export const csiParameterPrefix = "csi.storage.k8s.io/";
const prefixedFsTypeKey = `${csiParameterPrefix}fstype`;
/** The deprecated, unprefixed form, matched without regard to case. */
const legacyFsTypeKey = "fstype";

const secretOperations = [
  "provisioner",
  "controller-publish",
  "node-stage",
  "node-publish",
  "controller-expand",
  "node-expand",
] as const;

/** The reserved keys external-provisioner understands. */
const knownPrefixedKeys: ReadonlySet<string> = new Set([
  prefixedFsTypeKey,
  ...secretOperations.flatMap((operation) => [
    `${csiParameterPrefix}${operation}-secret-name`,
    `${csiParameterPrefix}${operation}-secret-namespace`,
  ]),
]);

/**
 * The filesystem type the class asks for ("" when none): `csi.storage.k8s.io/fstype` or the
 * deprecated `fsType` (any case), else `defaultFsType`; naming it more than once is an error.
 */
export function fsTypeFromParameters(parameters: Readonly<Record<string, string>>, defaultFsType = ""): string {
  const found = Object.entries(parameters).filter(
    ([key]) => key === prefixedFsTypeKey || key.toLowerCase() === legacyFsTypeKey,
  );
  if (found.length > 1) {
    throw new Error(`fstype specified in parameters with both "fstype" and "${prefixedFsTypeKey}" keys`);
  }
  return found[0]?.[1] || defaultFsType;
}

/** The parameters CreateVolume receives: everything but the reserved keys. */
export function driverParameters(parameters: Readonly<Record<string, string>>): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const [key, value] of Object.entries(parameters)) {
    if (!key.startsWith(csiParameterPrefix)) {
      passed[key] = value;
      continue;
    }
    if (!knownPrefixedKeys.has(key)) {
      throw new Error(
        "failed to strip CSI Parameters of prefixed keys: " +
          `found unknown parameter key "${key}" with reserved namespace ${csiParameterPrefix}`,
      );
    }
  }
  return passed;
}
