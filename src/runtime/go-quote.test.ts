import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { goQuote } from "./go-quote.ts";

describe("goQuote", () => {
  it("wraps plain text in double quotes", () => {
    assert.equal(goQuote("mount failed: exit status 32"), '"mount failed: exit status 32"');
  });

  it("escapes quotes, backslashes and control characters as Go's %q does", () => {
    assert.equal(goQuote('say "hi"\\'), '"say \\"hi\\"\\\\"');
    assert.equal(goQuote("a\nb\tc\rd"), '"a\\nb\\tc\\rd"');
    assert.equal(goQuote("\u0000\u001b\u007f"), '"\\x00\\x1b\\x7f"');
  });

  it("keeps printable non-ASCII characters", () => {
    assert.equal(goQuote("卷 µs"), '"卷 µs"');
  });
});
