/**
 * The child process of sqlite-crash.test.ts: writes ConfigMaps through a SQLite store as fast as
 * it can and prints each name on stdout once its create has resolved (been acknowledged), until
 * it is killed. Usage: node --import tsx sqlite-crash-writer.ts <store file> <max writes>
 */
import { RealClock } from "../../runtime/real-clock.ts";
import { Rng } from "../../runtime/rng.ts";
import { resourceForKind } from "../resources.ts";
import { openSqliteStore } from "./sqlite-store.ts";

const [path, maxWritesText] = process.argv.slice(2);
const maxWrites = Number(maxWritesText);
if (!path || !Number.isInteger(maxWrites) || maxWrites < 1) {
  process.stderr.write("usage: sqlite-crash-writer.ts <store file> <max writes>\n");
  process.exit(2);
}
const configMaps = resourceForKind("ConfigMap");
if (configMaps === undefined) throw new Error("the ConfigMap resource is not registered");

const store = openSqliteStore({ path, clock: new RealClock(), random: new Rng(process.pid) });
for (let i = 0; i < maxWrites; i++) {
  const name = `acked-${i}`;
  await store.create(configMaps, { metadata: { name }, data: { index: String(i) } });
  process.stdout.write(`${name}\n`);
}
await store.close();
