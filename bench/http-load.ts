/** The load of the HTTP benchmark: pod creates with a fixed number of requests in flight. */
import type { Client } from "../src/api/client/client.ts";
import { benchPod } from "./fixtures.ts";

/** Creates pods `first` … `first + count - 1` with `concurrency` requests in flight at any time. */
export async function createPods(client: Client, first: number, count: number, concurrency: number): Promise<void> {
  let next = first;
  const end = first + count;
  const worker = async (): Promise<void> => {
    while (next < end) await client.pods.create(benchPod(next++));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
