/**
 * The Ceph key of an rbd volume, read from the Secret the volume references (its value, as the
 * in-tree plugin reads it: the `key` entry, or else the only entry). No Secret means the keyring file.
 */
import { notFound } from "../../../api/errors.ts";
import type { VolumeApi } from "../../volume-host.ts";
import type { RbdVolumeInfo } from "./rbd-source.ts";

export async function rbdKey(api: VolumeApi, info: RbdVolumeInfo): Promise<string> {
  if (info.secret === undefined) return "";
  const { namespace, name } = info.secret;
  const secret = await api.getSecret(namespace, name);
  if (secret === undefined) {
    throw new Error(`couldn't get secret ${namespace}/${name} err: ${notFound("secrets", "", name).message}`);
  }
  const data = secret.data ?? {};
  const encoded = data.key ?? Object.values(data).at(-1) ?? "";
  return Buffer.from(encoded, "base64").toString("utf8");
}
