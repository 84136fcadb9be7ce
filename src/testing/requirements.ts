/**
 * Test support for tests that need root, a kernel feature or a system tool. Outside CI such a test
 * skips with the missing requirement printed; under CI=true it fails with that reason instead, so a
 * CI machine that cannot run it is noticed rather than reporting a quiet skip.
 */
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";

export const underCi = process.env.CI === "true";

/** Skips (or, under CI, fails) the test when `reason` is set; returns whether the test may go on. */
export function requireOrSkip(t: TestContext, reason: string | undefined): boolean {
  if (reason === undefined) return true;
  if (underCi) assert.fail(`${reason} (CI=true: this test must run)`);
  t.skip(reason);
  return false;
}

/**
 * The `skip` option for a whole suite. Outside CI: the reason, printed once. Under CI: `false`, so the
 * suite runs, plus one failing test that names what is missing.
 */
export function suiteSkip(title: string, reason: string | undefined): string | false {
  if (reason === undefined) return false;
  if (underCi) {
    test(`${title}: requirements`, () => assert.fail(`${reason} (CI=true: these tests must run)`));
    return false;
  }
  console.log(`skipping "${title}": ${reason}`);
  return reason;
}
