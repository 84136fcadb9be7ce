import assert from "node:assert/strict";
import { test } from "node:test";
import { expandVars, lookupIn } from "./var-expansion.ts";

const vars = lookupIn(
  new Map([
    ["GREETING", "hello"],
    ["EMPTY", ""],
  ]),
);

test("$(VAR) of a defined variable is its value", () => {
  assert.equal(expandVars("$(GREETING) world", vars), "hello world");
  assert.equal(expandVars("[$(EMPTY)]", vars), "[]");
});

test("an undefined $(VAR) stays as written", () => {
  assert.equal(expandVars("$(MISSING)-$(GREETING)", vars), "$(MISSING)-hello");
});

test("$$ is a literal dollar, so $$(VAR) is not expanded", () => {
  assert.equal(expandVars("$$(GREETING) costs $$5", vars), "$(GREETING) costs $5");
});

test("shell forms, a $( without ) and a trailing $ are kept as written", () => {
  assert.equal(expandVars("echo $HOME $1 $(GREETING", vars), "echo $HOME $1 $(GREETING");
  assert.equal(expandVars("price: 5$", vars), "price: 5$");
});
