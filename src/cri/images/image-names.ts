/**
 * Image references as the kubelet passes them (`busybox`, `nginx:1.25`, `docker.io/library/alpine`),
 * reduced to one key per image: the default registry and the `library/` prefix dropped, `:latest`
 * added when no tag or digest is given.
 */
const defaultRegistryPrefixes = ["docker.io/library/", "docker.io/", "index.docker.io/library/", "index.docker.io/"];
const defaultTag = "latest";

export function normalizeImageName(reference: string): string {
  let name = reference.trim();
  if (name === "") throw new Error("image name is empty");
  for (const prefix of defaultRegistryPrefixes) {
    if (name.startsWith(prefix)) {
      name = name.slice(prefix.length);
      break;
    }
  }
  if (name.startsWith("library/")) name = name.slice("library/".length);
  const lastSegment = name.slice(name.lastIndexOf("/") + 1);
  if (!lastSegment.includes(":") && !name.includes("@")) name = `${name}:${defaultTag}`;
  return name;
}

/** The repository part of a normalized name (`nginx:1.25` → `nginx`). */
export function imageRepository(normalized: string): string {
  const at = normalized.indexOf("@");
  const withoutDigest = at < 0 ? normalized : normalized.slice(0, at);
  const colon = withoutDigest.lastIndexOf(":");
  return colon > withoutDigest.lastIndexOf("/") ? withoutDigest.slice(0, colon) : withoutDigest;
}

/** A directory name for the image: `/`, `:` and `@` are escaped so every name is one path segment. */
export function imageDirName(normalized: string): string {
  return encodeURIComponent(normalized);
}
