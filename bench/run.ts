/**
 * `npm run bench`: runs every benchmark and prints one table. Figures are ratios against a
 * baseline measured in the same process; nothing here is asserted by the tests.
 */
import { etcdBenchmarks } from "./etcd.bench.ts";
import { httpStoreBenchmarks } from "./http-store.bench.ts";
import { printTable, type Row } from "./measure.ts";
import { protobufBenchmarks } from "./protobuf.bench.ts";
import { realNodeBenchmarks } from "./real-node.bench.ts";
import { simScaleBenchmarks } from "./sim-scale.bench.ts";
import { storeBenchmarks } from "./store.bench.ts";

const suites: Record<string, () => Promise<Row[]>> = {
  store: storeBenchmarks,
  http: httpStoreBenchmarks,
  "sim-scale": simScaleBenchmarks,
  protobuf: protobufBenchmarks,
  "real-node": realNodeBenchmarks,
  etcd: etcdBenchmarks,
};

const only = process.argv.slice(2);
const unknown = only.filter((name) => !(name in suites));
if (unknown.length > 0) {
  process.stderr.write(
    `no benchmark named ${unknown.join(", ")}; the benchmarks are ${Object.keys(suites).join(", ")}\n`,
  );
  process.exit(2);
}
const rows: Row[] = [];
for (const [name, suite] of Object.entries(suites)) {
  if (only.length > 0 && !only.includes(name)) continue;
  rows.push(...(await suite()));
}
printTable(rows);
