/**
 * What the bundled drivers' snapshot RPCs share: the snapshot id made from CreateSnapshot's name
 * (the idempotency key), the Snapshot message, ListSnapshots' filters and paging, and reading a
 * CreateVolume's volume_content_source.
 */
import { createHash } from "node:crypto";
import { CsiError } from "../../grpc/errors.ts";
import type { CreateVolumeRequest, ListSnapshotsRequest, ListSnapshotsResponse, Snapshot } from "../../proto/types.ts";
import { volumeIdHashHexDigits } from "./constants.ts";
import { pageOf } from "./list-pages.ts";

const msPerSecond = 1000;
const nanosPerMs = 1_000_000;

/** What a driver knows of one of its snapshots. */
export interface SnapshotFacts {
  id: string;
  sourceVolumeId: string;
  sizeBytes: number;
  creationTimeMs: number;
  readyToUse: boolean;
}

export function snapshotIdFor(prefix: string, name: string): string {
  return `${prefix}-${createHash("sha256").update(name).digest("hex").slice(0, volumeIdHashHexDigits)}`;
}

export function snapshotMessage(facts: SnapshotFacts): Snapshot {
  return {
    sizeBytes: facts.sizeBytes,
    snapshotId: facts.id,
    sourceVolumeId: facts.sourceVolumeId,
    creationTime: {
      seconds: Math.floor(facts.creationTimeMs / msPerSecond),
      nanos: (facts.creationTimeMs % msPerSecond) * nanosPerMs,
    },
    readyToUse: facts.readyToUse,
    groupSnapshotId: "",
  };
}

/** ALREADY_EXISTS when a snapshot of this name was cut from another volume, as the spec asks. */
export function checkSameSource(existing: SnapshotFacts, request: { name: string; sourceVolumeId: string }): void {
  if (existing.sourceVolumeId !== request.sourceVolumeId) {
    throw new CsiError(
      "AlreadyExists",
      `CreateSnapshot: a snapshot named ${request.name} already exists (${existing.id}) of volume ${existing.sourceVolumeId}, not of ${request.sourceVolumeId}`,
    );
  }
}

/** One page of the snapshots, filtered by snapshot_id and source_volume_id, in id order. */
export function listSnapshotsPage(all: readonly SnapshotFacts[], request: ListSnapshotsRequest): ListSnapshotsResponse {
  const matching = all
    .filter((facts) => request.snapshotId === "" || facts.id === request.snapshotId)
    .filter((facts) => request.sourceVolumeId === "" || facts.sourceVolumeId === request.sourceVolumeId)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const page = pageOf(matching, request, "ListSnapshots");
  return { entries: page.items.map((facts) => ({ snapshot: snapshotMessage(facts) })), nextToken: page.nextToken };
}

/** CreateVolume's content source: a snapshot, a volume (clone), or none; INVALID_ARGUMENT for an empty one. */
export type ContentSource = { snapshotId: string } | { volumeId: string } | undefined;

export function contentSourceOf(request: CreateVolumeRequest): ContentSource {
  const source = request.volumeContentSource;
  if (source === null) return undefined;
  if (source.snapshot !== undefined && source.snapshot !== null) {
    if (source.snapshot.snapshotId === "") {
      throw new CsiError("InvalidArgument", "CreateVolume: volume_content_source.snapshot.snapshot_id is required");
    }
    return { snapshotId: source.snapshot.snapshotId };
  }
  if (source.volume !== undefined && source.volume !== null) {
    if (source.volume.volumeId === "") {
      throw new CsiError("InvalidArgument", "CreateVolume: volume_content_source.volume.volume_id is required");
    }
    return { volumeId: source.volume.volumeId };
  }
  throw new CsiError("InvalidArgument", "CreateVolume: volume_content_source sets neither snapshot nor volume");
}

/** OUT_OF_RANGE when the new volume would be smaller than its source, as the spec words it. */
export function checkFitsSource(capacityBytes: number, sourceBytes: number, what: string): void {
  if (sourceBytes > capacityBytes) {
    throw new CsiError(
      "OutOfRange",
      `CreateVolume: the requested capacity of ${capacityBytes} bytes is smaller than ${what}'s ${sourceBytes} bytes`,
    );
  }
}

/** The content source a created volume reports back. */
export function contentSourceMessage(source: ContentSource): CreateVolumeRequest["volumeContentSource"] {
  if (source === undefined) return null;
  return "snapshotId" in source
    ? { snapshot: { snapshotId: source.snapshotId } }
    : { volume: { volumeId: source.volumeId } };
}
