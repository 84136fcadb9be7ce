/**
 * The child process of sqlite-crash.test.ts: writes ConfigMaps through a SQLite store as fast as
 * it can, `in flight` creates at a time (1 by default; more share group commits), and prints each
 * name on stdout once its create has resolved (been acknowledged), until it is killed.
 * Usage: node --import tsx sqlite-crash-writer.ts <store file> <max writes> [in flight]
 */
import { RealClock } from "../../runtime/real-clock.ts";
import { Rng } from "../../runtime/rng.ts";
import { resourceForKind } from "../resources.ts";
import { openSqliteStore } from "./sqlite-store.ts";

const [path, maxWritesText, inFlightText = "1"] = process.argv.slice(2);
const maxWrites = Number(maxWritesText);
const inFlight = Number(inFlightText);
if (!path || !Number.isInteger(maxWrites) || maxWrites < 1 || !Number.isInteger(inFlight) || inFlight < 1) {
  process.stderr.write("usage: sqlite-crash-writer.ts <store file> <max writes> [in flight]\n");
  process.exit(2);
}
const registered = resourceForKind("ConfigMap");
if (registered === undefined) throw new Error("the ConfigMap resource is not registered");
const configMaps = registered;

const store = openSqliteStore({ path, clock: new RealClock(), random: new Rng(process.pid) });
let next = 0;
async function writer(): Promise<void> {
  while (next < maxWrites) {
    const i = next++;
    const name = `acked-${i}`;
    await store.create(configMaps, { metadata: { name }, data: { index: String(i) } });
    process.stdout.write(`${name}\n`);
  }
}
await Promise.all(Array.from({ length: inFlight }, writer));
await store.close();
