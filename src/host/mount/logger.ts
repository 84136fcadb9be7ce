/**
 * Where the mount layer reports what Kubernetes' mount-utils writes to its log (klog): warnings such
 * as `Mount cleanup skipped because path does not exist: <path>`, and informational lines such as
 * a fsck that corrected errors. Callers pass their component's logger; the default discards.
 */
export interface MountLogger {
  info(message: string): void;
  warning(message: string): void;
}

/** For callers that do not keep mount-layer messages. */
export const discardingMountLogger: MountLogger = {
  info: () => undefined,
  warning: () => undefined,
};
