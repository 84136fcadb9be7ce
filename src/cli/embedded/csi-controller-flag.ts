/**
 * `--csi-controller NAME=unix:///path/controller.sock` of `kvol up` and `kvol server`: the
 * controller socket of a CSI driver that runs outside kvol. For each one the control plane runs
 * kvol's external-provisioner and external-attacher against that socket over real gRPC, as a
 * driver's controller Deployment runs csi-provisioner and csi-attacher beside its controller plugin.
 */
import { socketPathOf } from "../../csi/grpc/endpoint.ts";
import { errorMessage } from "../../runtime/error-message.ts";

export interface CsiControllerEndpoint {
  /** The driver name StorageClasses (`provisioner`) and VolumeAttachments (`attacher`) use. */
  driverName: string;
  /** `unix:///abs/path.sock`. */
  endpoint: string;
}

/** CSI driver names: at most 63 characters, alphanumerics at both ends, `-`, `_` and `.` between. */
const driverNamePattern = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;
const flagName = "--csi-controller";

/** Parses every `--csi-controller` value; throws an Error naming the flag and what is wrong. */
export function parseCsiControllerFlags(values: readonly string[] | undefined): CsiControllerEndpoint[] {
  const parsed: CsiControllerEndpoint[] = [];
  for (const value of values ?? []) {
    const separator = value.indexOf("=");
    if (separator <= 0) {
      throw new Error(
        `${flagName} ${JSON.stringify(value)}: expected NAME=unix:///path/to/controller.sock, the driver's name and its controller socket`,
      );
    }
    const driverName = value.slice(0, separator);
    const endpoint = value.slice(separator + 1);
    if (!driverNamePattern.test(driverName)) {
      throw new Error(
        `${flagName} ${JSON.stringify(value)}: ${JSON.stringify(driverName)} is not a CSI driver name ` +
          "(at most 63 characters: letters, digits, '-', '_' and '.', beginning and ending with a letter or digit)",
      );
    }
    try {
      socketPathOf(endpoint);
    } catch (error) {
      throw new Error(`${flagName} ${JSON.stringify(value)}: ${errorMessage(error)}`);
    }
    if (parsed.some((entry) => entry.driverName === driverName)) {
      throw new Error(
        `${flagName}: driver ${driverName} is given more than once; give each driver one controller socket`,
      );
    }
    parsed.push({ driverName, endpoint });
  }
  return parsed;
}
