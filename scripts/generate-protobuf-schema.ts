/**
 * Writes src/api/protobuf/schema.json, the protobuf messages of every kind kvol serves, from the
 * field table (src/api/protobuf/field-table.json).
 *
 *   node --import tsx scripts/generate-protobuf-schema.ts          writes the file
 *   node --import tsx scripts/generate-protobuf-schema.ts --check  exits 1 when the committed file is stale
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { generateProtobufSchema, protobufSchemaPath, renderProtobufSchema } from "../src/api/protobuf/generate.ts";

/** The repository's formatter owns JSON layout too; without this `biome check` would flag the file. */
function formatLikeTheRepository(path: string): void {
  const result = spawnSync("npx", ["biome", "format", "--write", path], { stdio: "inherit" });
  if (result.status !== 0) throw new Error(`biome format ${path} failed with exit status ${result.status}`);
}

function main(): void {
  const fresh = renderProtobufSchema(generateProtobufSchema());
  const path = fileURLToPath(protobufSchemaPath);
  if (process.argv.includes("--check")) {
    if (JSON.stringify(JSON.parse(readFileSync(path, "utf8"))) !== JSON.stringify(JSON.parse(fresh))) {
      console.error(`${path} is stale: run node --import tsx scripts/generate-protobuf-schema.ts`);
      process.exit(1);
    }
    return;
  }
  writeFileSync(path, fresh);
  formatLikeTheRepository(path);
  console.log(`wrote ${path}`);
}

main();
