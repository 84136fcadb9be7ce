import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { faultCatalogue } from "./catalogue.ts";
import { faultsDocPath, renderFaultsDoc } from "./faults-doc.ts";

describe("docs/faults.md", () => {
  it("is exactly what the catalogue renders (regenerate: npx tsx src/sim/faults/write-faults-doc.ts)", () => {
    assert.equal(readFileSync(faultsDocPath, "utf8"), renderFaultsDoc());
  });

  it("has a section with the reaction and every parameter of each fault", () => {
    const page = renderFaultsDoc();
    for (const fault of faultCatalogue.values()) {
      const section = page.slice(page.indexOf(`## ${fault.name}\n`));
      assert.ok(page.includes(`## ${fault.name}\n`), fault.name);
      assert.ok(section.includes(fault.kubernetesReaction), `${fault.name}: reaction`);
      for (const param of fault.params)
        assert.ok(section.includes(`| \`${param.name}\` |`), `${fault.name}: ${param.name}`);
    }
  });
});
