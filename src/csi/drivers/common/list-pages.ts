/**
 * ListVolumes' paging, shared by the bundled drivers: `max_entries` bounds a page (0: the driver's
 * default page size; negative: InvalidArgument), `starting_token` is the `next_token` of the page
 * before — the index of the next entry, as text. A token this driver did not hand out, or one past
 * the end, is Aborted: the spec's answer, on which the caller lists again from the start.
 */
import { CsiError } from "../../grpc/errors.ts";
import { listVolumesDefaultPageSize } from "./constants.ts";

interface PageRequest {
  maxEntries: number;
  startingToken: string;
}

interface Page<T> {
  items: T[];
  /** Empty on the last page. */
  nextToken: string;
}

/** The page of `items` (in the driver's stable order) the request asks for. */
export function pageOf<T>(items: readonly T[], request: PageRequest, rpc: string): Page<T> {
  if (request.maxEntries < 0) {
    throw new CsiError("InvalidArgument", `${rpc}: max_entries must not be negative, got ${request.maxEntries}`);
  }
  const start = pageStart(request.startingToken, items.length, rpc);
  const end = Math.min(items.length, start + (request.maxEntries || listVolumesDefaultPageSize));
  return { items: items.slice(start, end), nextToken: end < items.length ? String(end) : "" };
}

function pageStart(token: string, total: number, rpc: string): number {
  if (token === "") return 0;
  const start = /^\d+$/.test(token) ? Number(token) : Number.NaN;
  if (!Number.isSafeInteger(start) || start > total) {
    throw new CsiError(
      "Aborted",
      `${rpc}: starting_token ${JSON.stringify(token)} is not valid; list again from the start`,
    );
  }
  return start;
}
