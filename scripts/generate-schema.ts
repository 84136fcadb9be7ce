/**
 * Writes src/api/schema/definitions.json: the OpenAPI definitions of every kind kvol serves,
 * read from the `kubernetes-types` declaration files with the TypeScript compiler API (field
 * types, required fields and the doc comments as descriptions), with Kubernetes' patch metadata
 * from src/api/schema/patch-metadata.ts.
 *
 *   node --import tsx scripts/generate-schema.ts          writes the file
 *   node --import tsx scripts/generate-schema.ts --check  exits 1 when the committed file is stale
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { definitionsFilePath, generateDefinitions } from "../src/api/schema/generate.ts";

/** The repository's formatter owns JSON layout too; without this `biome check` would flag the file. */
function formatLikeTheRepository(path: string): void {
  const result = spawnSync("npx", ["biome", "format", "--write", path], { stdio: "inherit" });
  if (result.status !== 0) throw new Error(`biome format ${path} failed with exit status ${result.status}`);
}

function main(): void {
  const fresh = `${JSON.stringify(generateDefinitions(), null, 2)}\n`;
  const path = fileURLToPath(definitionsFilePath);
  if (process.argv.includes("--check")) {
    const committed = readFileSync(path, "utf8");
    if (JSON.stringify(JSON.parse(committed)) !== JSON.stringify(JSON.parse(fresh))) {
      console.error(`${path} is stale: run node --import tsx scripts/generate-schema.ts`);
      process.exit(1);
    }
    return;
  }
  writeFileSync(path, fresh);
  formatLikeTheRepository(path);
  console.log(`wrote ${path}`);
}

main();
