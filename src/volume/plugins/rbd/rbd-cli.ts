/**
 * The `rbd` command as the in-tree plugin drives it (Kubernetes' RBDUtil): `status` to see who
 * watches an image, `map` / `unmap` on the node, and `showmapped` to find an image's /dev/rbdN.
 * The Ceph key is passed as `--key=<key>`, exactly as Kubernetes passes it.
 */
import type { CommandResult, Host } from "../../../host/host.ts";
import type { RbdVolumeInfo } from "./rbd-source.ts";

const rbdCommand = "rbd";
/** What `rbd status` prints for each client watching the image. */
const imageWatcherText = "watcher=";

/** `--key=<key>` when the user's key came from a Secret, else the keyring file. */
function credentials(info: RbdVolumeInfo, key: string): string[] {
  return key === "" ? ["-k", info.keyring] : [`--key=${key}`];
}

function monitorsOption(info: RbdVolumeInfo): string {
  return info.monitors.join(",");
}

interface RbdStatus {
  /** True when some client (this node's or another's) watches the image. */
  used: boolean;
  output: string;
}

/** `rbd status <image> --pool <pool> -m <mons> --id <id> --key=<key>`; throws on a non-zero exit. */
export async function rbdStatus(host: Host, info: RbdVolumeInfo, key: string): Promise<RbdStatus> {
  const args = [
    "status",
    info.image,
    "--pool",
    info.pool,
    "-m",
    monitorsOption(info),
    "--id",
    info.id,
    ...credentials(info, key),
  ];
  const result = await host.run(rbdCommand, args);
  if (result.exitCode !== 0) {
    throw new Error(
      `fail to check rbd image status with: (exit status ${result.exitCode}), rbd output: (${result.output})`,
    );
  }
  return { used: result.output.includes(imageWatcherText), output: result.output };
}

/** `rbd map <pool>/<image> --id <id> -m <mons> --key=<key>`. */
export function rbdMap(host: Host, info: RbdVolumeInfo, key: string): Promise<CommandResult> {
  return host.run(rbdCommand, [
    "map",
    `${info.pool}/${info.image}`,
    "--id",
    info.id,
    "-m",
    monitorsOption(info),
    ...credentials(info, key),
  ]);
}

/** `rbd unmap <device>`. */
export async function rbdUnmap(host: Host, device: string): Promise<void> {
  const result = await host.run(rbdCommand, ["unmap", device]);
  if (result.exitCode !== 0) {
    throw new Error(
      `rbd: failed to unmap device ${device}, error exit status ${result.exitCode}, rbd output: ${result.output}`,
    );
  }
}

/** The /dev/rbdN this node has mapped for `<pool>/<image>`, if any (`rbd showmapped`). */
export async function rbdMappedDevice(host: Host, pool: string, image: string): Promise<string | undefined> {
  const result = await host.run(rbdCommand, ["showmapped"]);
  if (result.exitCode !== 0) return undefined;
  for (const line of result.output.split("\n").slice(1)) {
    const columns = line.trim().split(/\s+/);
    const device = columns.at(-1);
    // id, pool, [namespace], image, snap, device
    if (columns.length >= 5 && columns[1] === pool && columns.at(-3) === image && device?.startsWith("/dev/")) {
      return device;
    }
  }
  return undefined;
}
