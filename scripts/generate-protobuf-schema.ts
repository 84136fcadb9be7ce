/**
 * Writes src/api/protobuf/schema.json, the protobuf messages of every kind kvol serves, from the
 * field table (src/api/protobuf/field-table.json).
 *
 *   node --import tsx scripts/generate-protobuf-schema.ts          writes the file
 *   node --import tsx scripts/generate-protobuf-schema.ts --check  exits 1 when the committed file is stale
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { generateProtobufSchema, protobufSchemaPath } from "../src/api/protobuf/generate.ts";

/** One message per line: the file stays small and diffs by message. */
function render(schema: ReturnType<typeof generateProtobufSchema>): string {
  const kinds = Object.entries(schema.kinds).map(
    ([key, value]) => `    ${JSON.stringify(key)}: ${JSON.stringify(value)}`,
  );
  const messages = Object.entries(schema.messages).map(
    ([name, fields]) => `    ${JSON.stringify(name)}: ${JSON.stringify(fields)}`,
  );
  return `{\n  "kinds": {\n${kinds.join(",\n")}\n  },\n  "messages": {\n${messages.join(",\n")}\n  }\n}\n`;
}

function main(): void {
  const fresh = render(generateProtobufSchema());
  const path = fileURLToPath(protobufSchemaPath);
  if (process.argv.includes("--check")) {
    if (readFileSync(path, "utf8") !== fresh) {
      console.error(`${path} is stale: run node --import tsx scripts/generate-protobuf-schema.ts`);
      process.exit(1);
    }
    return;
  }
  writeFileSync(path, fresh);
  console.log(`wrote ${path}`);
}

main();
