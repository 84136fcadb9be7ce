/**
 * The shell program that turns a process into a container. It runs under /bin/sh on the node and:
 * 1. joins the container's cgroup, so every process of the container is in it from its first
 *    instruction;
 * 2. starts, through `unshare --mount --uts --pid --net`, PID 1 of new PID, mount, UTS and network
 *    namespaces (the network one holds only a loopback device); the copied mount tree is made a slave of the node's (`--make-rslave /`), so
 *    nothing the container mounts reaches the node while the node's unmounts reach the container;
 * 3. mounts the root filesystem (overlayfs over the image, or a private copy where overlayfs is
 *    refused), /proc, a small /dev, /sys read-only, and each volume: `--rbind`, remounted read-only
 *    when asked, with its propagation (None: private, HostToContainer: rslave, Bidirectional:
 *    rshared); each device gets a node of its own (same type and major:minor) at its `devicePath`;
 * 4. pivot_roots into it, and, with the node's static busybox (which needs no loader from the
 *    image), detaches the old root, enters the working directory and execs the command.
 *
 * Setup errors are written to fd 3, and "ready" just before the command runs: the runtime reads
 * that pipe to tell a container that started from one that could not (StartError).
 */
import type { Device, Mount, MountPropagation } from "../runtime-service.ts";
import { shellQuote as q } from "./shell-quote.ts";

export interface SetupTools {
  unshare: string;
  mount: string;
  pivotRoot: string;
  cp: string;
  /** A statically linked busybox on the node, run from the old root after pivot_root. */
  busybox: string;
}

interface ContainerSetup {
  cgroupDir: string;
  hostname: string;
  /** The image's root filesystem (the overlay's lower layer). */
  imageRootfs: string;
  /** The container's own directory: `rootfs/` (mount point), `upper/` and `work/` for overlayfs. */
  containerDir: string;
  mounts: readonly Mount[];
  devices: readonly Device[];
  workingDir: string;
}

/** The line the setup writes to fd 3 once the command is about to run. */
export const readyLine = "ready";
/** Where the old root sits between pivot_root and its detach. */
const oldRootName = ".kvol-oldroot";
/** Host devices every container gets. */
const containerDevices = ["null", "zero", "full", "random", "urandom", "tty"];

const propagationFlag: Readonly<Record<MountPropagation, string>> = {
  PROPAGATION_PRIVATE: "--make-rprivate",
  PROPAGATION_HOST_TO_CONTAINER: "--make-rslave",
  PROPAGATION_BIDIRECTIONAL: "--make-rshared",
};

function inRoot(containerPath: string): string {
  return `"$R"${q(containerPath)}`;
}

function mountLines(tools: SetupTools, mount: Mount): string[] {
  const target = inRoot(mount.containerPath);
  const m = q(tools.mount);
  return [
    // A file is bound onto a file, a directory onto a directory (as runc creates the target).
    `if [ -d ${q(mount.hostPath)} ]; then mkdir -p ${target}; else mkdir -p "$(dirname ${target})"; [ -e ${target} ] || : > ${target}; fi`,
    `${m} --rbind ${q(mount.hostPath)} ${target}`,
    ...(mount.readonly ? [`${m} -o remount,bind,ro ${target}`] : []),
    `${m} ${propagationFlag[mount.propagation]} ${target}`,
  ];
}

/**
 * A device node with the node's device's type, major:minor and mode, made in the container's /dev
 * tmpfs, as runc does: `hostPath` may be the kubelet's symlink to the device (followed), and the
 * container holds no mount of the node's /dev that an unmount on the node would have to reach.
 */
function deviceLines(device: Device): string[] {
  const target = inRoot(device.containerPath);
  const host = q(device.hostPath);
  return [
    `if [ -b ${host} ]; then t=b; elif [ -c ${host} ]; then t=c; else echo ${q(`device ${device.hostPath} is not a block or character device`)} >&3; exit 125; fi`,
    `mkdir -p "$(dirname ${target})"`,
    `rm -f ${target}`,
    `mknod -m "$(stat -L -c %a ${host})" ${target} "$t" $(stat -L -c '0x%t 0x%T' ${host})`,
  ];
}

/** Mounts the root filesystem, proc, dev and sys at "$R". */
function rootfsLines(tools: SetupTools, setup: ContainerSetup): string[] {
  const m = q(tools.mount);
  const dir = setup.containerDir;
  const overlayOptions = `lowerdir=${setup.imageRootfs},upperdir=${dir}/upper,workdir=${dir}/work`;
  return [
    `R=${q(`${dir}/rootfs`)}`,
    `if ! ${m} -t overlay overlay -o ${q(overlayOptions)} "$R" 2>/dev/null; then`,
    `  ${q(tools.cp)} -a ${q(`${setup.imageRootfs}/.`)} "$R"/ && ${m} --bind "$R" "$R"`,
    "fi",
    `mkdir -p "$R/proc" "$R/dev" "$R/sys" "$R/tmp"`,
    `${m} -t proc -o nosuid,nodev,noexec proc "$R/proc"`,
    `${m} -t tmpfs -o nosuid,mode=755,size=65536k tmpfs "$R/dev"`,
    `for d in ${containerDevices.join(" ")}; do : > "$R/dev/$d"; ${m} --bind "/dev/$d" "$R/dev/$d"; done`,
    `mkdir -p "$R/dev/pts" "$R/dev/shm"`,
    `${m} -t tmpfs -o nosuid,nodev,mode=1777 shm "$R/dev/shm"`,
    `ln -s /proc/self/fd "$R/dev/fd"; ln -s /proc/self/fd/0 "$R/dev/stdin"`,
    `ln -s /proc/self/fd/1 "$R/dev/stdout"; ln -s /proc/self/fd/2 "$R/dev/stderr"`,
    `${m} -t sysfs -o ro,nosuid,nodev,noexec sysfs "$R/sys" || true`,
  ];
}

/** Runs inside the new root under the node's busybox: detach the old root, chdir, exec. */
const finishScript = [
  `umount -l /${oldRootName} && rmdir /${oldRootName} || exit 125`,
  `cd "$1" || { echo "chdir to cwd (\\"$1\\") set in config.json failed: no such file or directory" >&3; exit 128; }`,
  "shift",
  `command -v "$1" >/dev/null 2>&1 || { echo "exec: \\"$1\\": executable file not found in \\$PATH" >&3; exit 128; }`,
  `echo ${readyLine} >&3`,
  'exec 3>&- 2>&5 5>&- "$@"',
].join("\n");

/** The script run inside the new namespaces (as PID 1 of the PID namespace). */
function insideScript(tools: SetupTools, setup: ContainerSetup): string {
  return [
    "set -e",
    `${q(tools.mount)} --make-rslave /`,
    `echo ${q(setup.hostname)} > /proc/sys/kernel/hostname`,
    ...rootfsLines(tools, setup),
    ...setup.mounts.flatMap((mount) => mountLines(tools, mount)),
    ...setup.devices.flatMap(deviceLines),
    `mkdir -p ${inRoot(setup.workingDir)}`,
    `mkdir -p "$R/${oldRootName}"`,
    `cd "$R"`,
    `${q(tools.pivotRoot)} . ${oldRootName}`,
    `exec /${oldRootName}${q(tools.busybox)} sh -c ${q(finishScript)} kvol-init "$@"`,
  ].join("\n");
}

/**
 * Runs in the new mount and UTS namespaces but, as unshare --pid leaves it, outside the new PID
 * namespace: its first child is PID 1 there, and the shell reports that child's end as a shell
 * does, 128 + the signal for a killed one (unshare --fork cannot report a SIGKILL: it exits 1).
 */
function waitForInitScript(tools: SetupTools, setup: ContainerSetup): string {
  return `/bin/sh -c ${q(insideScript(tools, setup))} kvol-init "$@" &\nwait $!`;
}

/**
 * The program and arguments to spawn with fd 3 a pipe to the runtime: `argv` is the container's
 * command line, `workingDir` where it starts.
 */
export function containerSetupCommand(
  tools: SetupTools,
  setup: ContainerSetup,
  argv: readonly string[],
): { command: string; args: string[] } {
  const outer = [
    // Setup errors go to fd 3; the container's own stderr waits in fd 5 until the command runs.
    "exec 5>&2 2>&3",
    `echo $$ > ${q(`${setup.cgroupDir}/cgroup.procs`)} || exit 125`,
    // --net: a network namespace of its own (loopback only), so two pods serving one port (the
    // examples' nginx pods) do not meet on the machine's; pods have no network beyond it yet.
    `exec ${q(tools.unshare)} --mount --uts --pid --net --propagation unchanged /bin/sh -c ${q(waitForInitScript(tools, setup))} kvol-setup "$@"`,
  ].join("\n");
  return { command: "/bin/sh", args: ["-c", outer, "kvol-container", setup.workingDir, ...argv] };
}
