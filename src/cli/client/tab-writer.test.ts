import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { alignTabs } from "./tab-writer.ts";

describe("alignTabs", () => {
  it("aligns each run of consecutive label lines, breaking at a line without a tab", () => {
    const text = [
      "Name:\tweb-0",
      "Namespace:\tdefault",
      "Containers:",
      "  app:",
      "    Image:\tbusybox",
      "    Restart Count:\t0",
      "Events:\t<none>",
      "",
    ].join("\n");
    assert.equal(
      alignTabs(text),
      [
        "Name:       web-0",
        "Namespace:  default",
        "Containers:",
        "  app:",
        "    Image:          busybox",
        "    Restart Count:  0",
        // Go's tabwriter aligns it with the lines just above, as real kubectl output shows.
        "Events:             <none>",
        "",
      ].join("\n"),
    );
  });

  it("aligns table columns", () => {
    assert.equal(
      alignTabs("  Type\tReason\tMessage\n  ----\t------\t-------\n  Warning\tFailedMount\tmount failed"),
      "  Type     Reason       Message\n  ----     ------       -------\n  Warning  FailedMount  mount failed",
    );
  });
});
