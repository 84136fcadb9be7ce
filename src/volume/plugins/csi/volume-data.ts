/**
 * `vol_data.json`: what the kubelet writes beside a CSI staging or publish directory so it can
 * tear the volume down (and rebuild its spec after a restart) without the API objects. The file is
 * a flat JSON object of strings, written the way Go's json.Encoder writes a map: keys sorted,
 * `<`, `>` and `&` escaped, one trailing newline — byte for byte what a real kubelet leaves on disk.
 */
import { posix } from "node:path";
import { type Host, isHostError } from "../../../host/host.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
import { csiVolumeDataFileName } from "../../paths.ts";
import { csiMessagePrefix, csiVolumeDataFileMode } from "./csi-constants.ts";

/** The keys Kubernetes uses (csi_plugin.go `volDataKey`). */
export const volumeDataKey = {
  specVolID: "specVolID",
  volumeHandle: "volumeHandle",
  driverName: "driverName",
  nodeName: "nodeName",
  attachmentID: "attachmentID",
  volumeLifecycleMode: "volumeLifecycleMode",
  seLinuxMountContext: "seLinuxMountContext",
} as const;

type VolumeData = Readonly<Record<string, string>>;

/** Go's json.Marshal of map[string]string: sorted keys, HTML-safe escapes, newline from Encoder. */
export function encodeVolumeData(data: VolumeData): string {
  const sorted = Object.fromEntries(
    Object.keys(data)
      .sort()
      .map((key) => [key, data[key]]),
  );
  const json = JSON.stringify(sorted)
    .replaceAll("<", "\\u003c")
    .replaceAll(">", "\\u003e")
    .replaceAll("&", "\\u0026")
    .replaceAll("\u2028", "\\u2028")
    .replaceAll("\u2029", "\\u2029");
  return `${json}\n`;
}

/** Writes `<dir>/vol_data.json`, replacing an earlier one. */
export async function saveVolumeData(host: Host, dir: string, data: VolumeData): Promise<void> {
  const path = posix.join(dir, csiVolumeDataFileName);
  try {
    await host.writeFile(path, encodeVolumeData(data), csiVolumeDataFileMode);
  } catch (err) {
    throw new Error(`${csiMessagePrefix}failed to save volume data file ${path}: ${errorMessage(err)}`, { cause: err });
  }
}

/** Reads `<dir>/vol_data.json`; `isVolumeDataMissing` tells a missing file from a broken one. */
export async function loadVolumeData(host: Host, dir: string): Promise<VolumeData> {
  const path = posix.join(dir, csiVolumeDataFileName);
  let bytes: Uint8Array;
  try {
    bytes = await host.readFile(path);
  } catch (err) {
    throw new Error(`${csiMessagePrefix}failed to open volume data file [${path}]: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  return parseVolumeData(new TextDecoder().decode(bytes), path);
}

function parseVolumeData(text: string, path: string): VolumeData {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`${csiMessagePrefix}failed to parse volume data file [${path}]: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${csiMessagePrefix}failed to parse volume data file [${path}]: not a JSON object`);
  }
  const entries = Object.entries(parsed);
  const notString = entries.find(([, value]) => typeof value !== "string");
  if (notString !== undefined) {
    throw new Error(
      `${csiMessagePrefix}failed to parse volume data file [${path}]: value of "${notString[0]}" is not a string`,
    );
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

/** True when loading failed because the file does not exist (nothing was ever written there). */
export function isVolumeDataMissing(err: unknown): boolean {
  return err instanceof Error && isHostError(err.cause, "ENOENT");
}
