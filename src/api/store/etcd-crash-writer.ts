/**
 * The child process of etcd-crash.test.ts: writes ConfigMaps through a store on etcd as fast as it
 * can and prints each name on stdout once its create has resolved (been acknowledged by etcd),
 * until it is killed. Usage: node --import tsx etcd-crash-writer.ts <etcd URL> <max writes>
 */
import { RealClock } from "../../runtime/real-clock.ts";
import { Rng } from "../../runtime/rng.ts";
import { resourceForKind } from "../resources.ts";
import { EtcdBackend } from "./etcd-backend.ts";
import { KubeStore } from "./kube-store.ts";

const [endpoint, maxWritesText] = process.argv.slice(2);
const maxWrites = Number(maxWritesText);
if (!endpoint || !Number.isInteger(maxWrites) || maxWrites < 1) {
  process.stderr.write("usage: etcd-crash-writer.ts <etcd URL> <max writes>\n");
  process.exit(2);
}
const configMaps = resourceForKind("ConfigMap");
if (configMaps === undefined) throw new Error("the ConfigMap resource is not registered");

const backend = await EtcdBackend.open({ endpoints: [endpoint] });
const store = new KubeStore({ backend, clock: new RealClock(), random: new Rng(process.pid) });
for (let i = 0; i < maxWrites; i++) {
  const name = `acked-${i}`;
  await store.create(configMaps, { metadata: { name }, data: { index: String(i) } });
  process.stdout.write(`${name}\n`);
}
await store.close();
