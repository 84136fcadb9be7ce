/**
 * What a failing volume operation's error means and what to do about it: the errors operators
 * meet, recognised by the words the kernel, mount(8), the kubelet and CSI put in them.
 */
import { firstLine } from "./chain.ts";

export interface OperationDiagnosis {
  /** The blocker in a few words. */
  state: string;
  remedy: string[];
}

/** The packages that bring a `mount.<type>` helper, on Debian/Ubuntu and on RHEL/Fedora. */
const helperPackages: Readonly<Record<string, { debian: string; redhat: string }>> = {
  nfs: { debian: "nfs-common", redhat: "nfs-utils" },
  nfs4: { debian: "nfs-common", redhat: "nfs-utils" },
  cifs: { debian: "cifs-utils", redhat: "cifs-utils" },
  glusterfs: { debian: "glusterfs-client", redhat: "glusterfs-fuse" },
  ceph: { debian: "ceph-common", redhat: "ceph-common" },
};

/**
 * `-t nfs` in the mount arguments the kubelet logged: `mount -t nfs …` (through systemd-run), or
 * `Mounting arguments: -t nfs …` when the kubelet calls mount directly.
 */
function filesystemType(error: string): string | undefined {
  return /(?:mount|Mounting arguments:) -t (\S+)/.exec(error)?.[1];
}

/**
 * mount(8) without the type's helper: the kernel's refusal of a mount the helper should have
 * prepared ("… you might need a /sbin/mount.<type> helper program"), or, where the kernel has no
 * such filesystem loaded either, "unknown filesystem type 'nfs'" (the helper's package brings the
 * module in). The latter names a helper only for the types mounted through one.
 */
function lacksHelper(error: string, type: string | undefined): boolean {
  if (/helper program/.test(error)) return true;
  const unknown = /unknown filesystem type '([^']+)'/.exec(error)?.[1];
  return unknown !== undefined && unknown === type && helperPackages[unknown] !== undefined;
}

function helperMissing(error: string, nodeName: string): OperationDiagnosis | undefined {
  const type = filesystemType(error);
  if (!/exit status 32/.test(error) || !lacksHelper(error, type)) return undefined;
  if (type === undefined) {
    return {
      state: "mount failed: exit status 32 (wrong fs type, bad option, or a missing mount helper)",
      remedy: [`Check the filesystem type and options, and that node ${nodeName} has the /sbin/mount.<type> helper.`],
    };
  }
  const packages = helperPackages[type];
  const install =
    packages === undefined
      ? `install the package that provides /sbin/mount.${type}`
      : `apt-get install ${packages.debian} (Debian/Ubuntu) or dnf install ${packages.redhat} (RHEL/Fedora)`;
  return {
    state: `mount failed: exit status 32: node ${nodeName} has no /sbin/mount.${type} helper`,
    remedy: [
      `Install the helper on node ${nodeName}: ${install}.`,
      "Then delete the stuck pods (or scale their workload to 0 and back) so new pods mount the volume; " +
        "the kubelet also retries by itself at its next permitted attempt.",
    ],
  };
}

function driverNotRegistered(error: string, nodeName: string): OperationDiagnosis | undefined {
  // The kubelet's words, or the attacher's when the node's CSINode lacks the driver.
  const driver =
    /driver name (\S+) not found in the list of registered CSI drivers/.exec(error)?.[1] ??
    /CSINode \S+ does not contain driver (\S+)/.exec(error)?.[1];
  if (driver === undefined) return undefined;
  return {
    state: `CSI driver ${driver} is not registered with the kubelet on node ${nodeName}`,
    remedy: [
      `Start (or fix) ${driver}'s node plugin on node ${nodeName}: its node-driver-registrar registers it with the kubelet.`,
      `Check: kubectl get csinode ${nodeName} -o yaml (spec.drivers lists the registered drivers).`,
    ],
  };
}

function transportNotConnected(error: string): OperationDiagnosis | undefined {
  if (!/transport endpoint is not connected|ENOTCONN/i.test(error)) return undefined;
  return {
    state: "the mount's FUSE daemon is gone: transport endpoint is not connected (ENOTCONN)",
    remedy: [
      "The kernel mount outlived its FUSE daemon (its CSI node plugin restarted, or the daemon was killed). Delete the pod: " +
        "NodeUnpublish cleans the dead mount up and the new pod gets a fresh one.",
      "To survive plugin restarts: run the daemons outside the plugin container, or use a driver that " +
        "re-establishes its mounts on start.",
    ],
  };
}

function targetBusy(error: string): OperationDiagnosis | undefined {
  if (!/target is busy|device or resource busy/i.test(error)) return undefined;
  return {
    state: "unmount failed: target is busy (a process still uses the mount)",
    remedy: [
      "Find and stop the process that holds the mount (on the node: fuser -vm MOUNTPOINT, or lsof +D MOUNTPOINT); " +
        "the kubelet's next retry then unmounts it.",
    ],
  };
}

function objectNotFound(error: string): OperationDiagnosis | undefined {
  const found = /(secret|configmap) "([^"]+)" not found/i.exec(error);
  if (found === null) return undefined;
  const kind = found[1]?.toLowerCase() === "secret" ? "secret" : "configmap";
  return {
    state: `${kind} "${found[2]}" not found`,
    remedy: [`Create ${kind} ${found[2]} in the pod's namespace; the kubelet's next retry mounts it.`],
  };
}

function deadlineExceeded(error: string): OperationDiagnosis | undefined {
  if (!/DeadlineExceeded|context deadline exceeded|timed out/i.test(error)) return undefined;
  return {
    state: "the storage backend did not answer in time; the outcome is uncertain",
    remedy: [
      "The kubelet retries with backoff and treats the mount as uncertain meanwhile; check the storage backend and the CSI driver's logs.",
    ],
  };
}

/** What the operation's last error says, when it is one of the errors recognised here. */
export function knownOperationDiagnosis(error: string, nodeName: string): OperationDiagnosis | undefined {
  return [
    helperMissing(error, nodeName),
    driverNotRegistered(error, nodeName),
    transportNotConnected(error),
    targetBusy(error),
    objectNotFound(error),
    deadlineExceeded(error),
  ].find((diagnosis) => diagnosis !== undefined);
}

/** What the operation's last error says, or a generic reading of it. */
export function diagnoseOperationError(error: string, nodeName: string): OperationDiagnosis {
  const known = knownOperationDiagnosis(error, nodeName);
  if (known !== undefined) return known;
  return {
    state: shortError(error),
    remedy: ["Fix what the error names; the kubelet retries by itself once its backoff has passed."],
  };
}

/** `MountVolume.MountDevice failed: <cause>`: the operation and the cause, without the volume's unique name and pod. */
function shortError(error: string): string {
  const line = firstLine(error);
  const operation = /^(\S+ failed)/.exec(line)?.[1];
  const separator = line.indexOf(" : ");
  if (operation === undefined || separator < 0) return line;
  return `${operation}: ${line.slice(separator + 3)}`;
}
