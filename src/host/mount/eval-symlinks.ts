/**
 * filepath.EvalSymlinks over a Host: the path with every symbolic link resolved, as the kernel
 * records it in the mount table. Every component must exist (ENOENT otherwise), and a path that
 * follows more than `maxSymlinkFollowsCount` links fails with ELOOP.
 */
import { posix } from "node:path";
import { type Host, HostError } from "../host.ts";
import { maxSymlinkFollowsCount } from "./constants.ts";

export async function evalSymlinks(host: Host, path: string): Promise<string> {
  if (!path.startsWith("/")) throw new HostError("EINVAL", "evalsymlinks", path, "path must be absolute");
  let resolved = "/";
  const pending = splitComponents(path);
  let linksFollowed = 0;
  // Each pass consumes one component; following a link adds at most its own components, and the
  // number of links is bounded, so the loop ends.
  while (pending.length > 0) {
    const component = pending.shift() as string;
    if (component === ".") continue;
    if (component === "..") {
      resolved = posix.dirname(resolved);
      continue;
    }
    const candidate = posix.join(resolved, component);
    const stat = await host.lstat(candidate);
    if (stat.type !== "symlink") {
      resolved = candidate;
      continue;
    }
    linksFollowed += 1;
    if (linksFollowed > maxSymlinkFollowsCount) throw new HostError("ELOOP", "evalsymlinks", path);
    const target = await host.readlink(candidate);
    if (target.startsWith("/")) resolved = "/";
    pending.unshift(...splitComponents(target));
  }
  return resolved;
}

function splitComponents(path: string): string[] {
  return path.split("/").filter((component) => component !== "");
}
