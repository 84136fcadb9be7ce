/**
 * NodeExpand of the CSI plugin (Kubernetes' pkg/volume/csi/expander.go): asks the driver to grow a
 * staged or published volume with NodeExpandVolume — only when its node service advertises
 * EXPAND_VOLUME — with the PV's `nodeExpandSecretRef` as secrets. The driver's answer is classified
 * as the kubelet classifies it: FailedPrecondition (the volume cannot grow while in use here),
 * InvalidArgument / OutOfRange / NotFound (the size cannot be had), the non-final gRPC codes
 * (the driver may still be growing it), anything else a final failure.
 */
import { CsiError, isFinalCsiError } from "../../../csi/grpc/errors.ts";
import { errorMessage } from "../../../runtime/error-message.ts";
import {
  FailedPreconditionError,
  InfeasibleError,
  OperationNotSupportedError,
  TransientOperationFailure,
  UncertainProgressError,
} from "../../errors.ts";
import type { NodeResizeOptions } from "../../plugin.ts";
import { csiBlockFsType } from "./csi-constants.ts";
import { credentialsFromSecret } from "./csi-credentials.ts";
import { type CsiNodeContext, driverCalls } from "./csi-node-context.ts";
import { csiAccessModeOf, csiPersistentSource } from "./csi-source.ts";

const expandFailedPrefix = "Expander.NodeExpand failed to expand the volume : ";
const infeasibleCodes: ReadonlySet<string> = new Set(["InvalidArgument", "OutOfRange", "NotFound"]);

/** The kubelet's error class for a failed NodeExpandVolume. */
function classified(err: unknown): Error {
  const message = `${expandFailedPrefix}${errorMessage(err)}`;
  if (!isFinalCsiError(err)) return new UncertainProgressError(message, { cause: err });
  if (err instanceof CsiError && err.code === "FailedPrecondition") {
    return new FailedPreconditionError(message, { cause: err });
  }
  if (err instanceof CsiError && infeasibleCodes.has(err.code)) return new InfeasibleError(message, { cause: err });
  return new Error(message, { cause: err });
}

async function nodeExpandSecrets(context: CsiNodeContext, options: NodeResizeOptions): Promise<Record<string, string>> {
  const ref = csiPersistentSource(options.volumeSpec).nodeExpandSecretRef;
  if (ref === undefined) return {};
  try {
    return await credentialsFromSecret(context.volumeHost.api, ref);
  } catch (err) {
    throw new TransientOperationFailure(
      `expander.NodeExpand failed to get NodeExpandSecretRef ${ref.namespace ?? ""}/${ref.name ?? ""}: ${errorMessage(err)}`,
      { cause: err },
    );
  }
}

/** NodeExpandVolume to `options.newSizeBytes`; throws the classes of `errors.ts`. */
export async function csiNodeExpand(context: CsiNodeContext, options: NodeResizeOptions): Promise<boolean> {
  const spec = options.volumeSpec;
  const source = csiPersistentSource(spec);
  const calls = driverCalls(context, source.driver, "Expander.NodeExpand failed to get CSI client");
  let supported: boolean;
  try {
    supported = await calls.supportsNodeExpand();
  } catch (err) {
    throw new Error(`Expander.NodeExpand failed to check if node supports expansion : ${errorMessage(err)}`, {
      cause: err,
    });
  }
  if (!supported) {
    throw new OperationNotSupportedError(`NodeExpand is not supported by the CSI driver ${source.driver}`);
  }
  const secrets = await nodeExpandSecrets(context, options);
  const block = spec.isBlock();
  try {
    await calls.expandVolume({
      volumeHandle: source.volumeHandle,
      // Block volumes are not mounted: the driver grows them through the device.
      volumePath: block ? options.devicePath : options.deviceMountPath,
      stagingPath: options.deviceStagePath,
      requiredBytes: options.newSizeBytes,
      fsType: block ? csiBlockFsType : (source.fsType ?? ""),
      accessMode: csiAccessModeOf(spec),
      mountOptions: spec.mountOptions(),
      secrets,
    });
  } catch (err) {
    throw classified(err);
  }
  return true;
}
