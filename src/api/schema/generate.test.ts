import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateDefinitions } from "./generate.ts";
import { openApiDefinitions } from "./schema.ts";

describe("the committed definitions file", () => {
  it("equals a fresh generation from kubernetes-types and the patch metadata table", () => {
    assert.deepEqual(
      openApiDefinitions(),
      JSON.parse(JSON.stringify(generateDefinitions())),
      "src/api/schema/definitions.json is stale: run `node --import tsx scripts/generate-schema.ts` and commit it",
    );
  });
});
