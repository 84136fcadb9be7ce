/**
 * The files of a downward API volume (Kubernetes' downwardapi.CollectData), shared with projected
 * volumes. Every item is tried; the errors are reported together.
 */

import { posix } from "node:path";
import type { DownwardAPIVolumeFile, Pod } from "kubernetes-types/core/v1.js";
import type { FileProjection } from "../../atomic-writer.ts";
import { aggregateError, fileMode } from "../atomic-volume/atomic-volume.ts";
import { extractFieldPathAsString } from "./field-path.ts";
import { extractResourceValue } from "./resource-field.ts";

function itemValue(
  item: DownwardAPIVolumeFile,
  pod: Pod,
  nodeAllocatable: Readonly<Record<string, string>> | undefined,
): string {
  if (item.fieldRef !== undefined) return extractFieldPathAsString(pod, item.fieldRef.fieldPath);
  if (item.resourceFieldRef !== undefined) return extractResourceValue(item.resourceFieldRef, pod, nodeAllocatable);
  return "";
}

export function collectDownwardApiData(
  items: readonly DownwardAPIVolumeFile[] | undefined,
  pod: Pod,
  nodeAllocatable: Readonly<Record<string, string>> | undefined,
  defaultMode: number | undefined,
): Map<string, FileProjection> {
  const payload = new Map<string, FileProjection>();
  const errors: Error[] = [];
  for (const item of items ?? []) {
    let value = "";
    try {
      value = itemValue(item, pod, nodeAllocatable);
    } catch (err) {
      errors.push(err instanceof Error ? err : new Error(String(err)));
    }
    payload.set(posix.normalize(item.path), {
      data: Buffer.from(value, "utf8"),
      mode: fileMode(item.mode, defaultMode),
    });
  }
  const failure = aggregateError(errors);
  if (failure !== undefined) throw failure;
  return payload;
}
