/**
 * Which CSI versions a registering driver offers, and the highest this kubelet accepts (k8s.io
 * apimachinery `version.HighestSupportedVersion` as csi_plugin.go uses it): versions with a major
 * above 1 are skipped, unparsable ones remembered for the error, and the newest of the rest wins.
 */
import { highestSupportedCsiMajorVersion } from "./csi-constants.ts";

export interface CsiVersion {
  major: number;
  minor: number;
  patch: number;
}

/** `1.2`, `1.2.3`, `v1.2.3` and `1.2.3-rc.1` (the pre-release suffix is ignored for ordering). */
const versionPattern = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?$/;

function parseCsiVersion(text: string): CsiVersion {
  const match = versionPattern.exec(text.trim());
  if (match === null) throw new Error(`could not parse "${text}" as version`);
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3] ?? 0) };
}

export function compareCsiVersions(a: CsiVersion, b: CsiVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

export function formatCsiVersion(version: CsiVersion): string {
  return `${version.major}.${version.minor}.${version.patch}`;
}

/** The highest version this kubelet can speak among `versions`, or an error worded as Kubernetes words it. */
export function highestSupportedVersion(versions: readonly string[]): CsiVersion {
  if (versions.length === 0) throw new Error("empty array passed as supported versions");
  let highest: CsiVersion | undefined;
  let parseError: Error | undefined;
  for (const text of versions) {
    let version: CsiVersion;
    try {
      version = parseCsiVersion(text);
    } catch (err) {
      parseError = err as Error;
      continue;
    }
    if (version.major > highestSupportedCsiMajorVersion) continue;
    if (highest === undefined || compareCsiVersions(highest, version) < 0) highest = version;
  }
  if (highest === undefined) {
    throw new Error(
      `could not find a highest supported version from versions ([${versions.join(" ")}]) reported: ${parseError?.message ?? "<nil>"}`,
    );
  }
  return highest;
}
