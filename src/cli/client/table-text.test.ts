import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { nameColumn } from "../../api/printers/table-types.ts";
import { tableText, type WireTable } from "./table-text.ts";

const table: WireTable = {
  columnDefinitions: [
    nameColumn,
    { name: "Status", type: "string", format: "", description: "", priority: 0 },
    { name: "Node", type: "string", format: "", description: "", priority: 1 },
  ],
  rows: [
    { cells: ["web-0", "Running", "node-1"], object: { metadata: { namespace: "default" } } },
    { cells: ["db", "ContainerCreating", "node-22"], object: { metadata: { namespace: "ops-test" } } },
  ],
};

describe("tableText", () => {
  it("pads each column to its widest cell plus three spaces, as kubectl does", () => {
    assert.equal(
      tableText(table, { wide: false, withNamespace: false }),
      "NAME    STATUS\nweb-0   Running\ndb      ContainerCreating\n",
    );
  });

  it("adds the wide columns, a NAMESPACE column and kind prefixes when asked", () => {
    assert.equal(
      tableText(table, { wide: true, withNamespace: true, namePrefix: "pod/" }),
      [
        "NAMESPACE   NAME        STATUS              NODE",
        "default     pod/web-0   Running             node-1",
        "ops-test    pod/db      ContainerCreating   node-22",
        "",
      ].join("\n"),
    );
  });
});
