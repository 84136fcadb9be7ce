import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isApiError } from "../errors.ts";
import { labelMatcherFromSelector, labelMatcherFromSet, parseLabelSelector } from "./labels.ts";

const web = { app: "web", tier: "frontend", env: "prod" };
const db = { app: "db", tier: "backend" };

function rejects(text: string, mentioning: string): void {
  assert.throws(
    () => parseLabelSelector(text),
    (err: unknown) => isApiError(err, "BadRequest") && err.message.includes(mentioning),
    `expected "${text}" to be rejected mentioning ${mentioning}`,
  );
}

describe("parseLabelSelector", () => {
  it("matches everything when empty", () => {
    assert.equal(parseLabelSelector("").matches(undefined), true);
    assert.equal(parseLabelSelector("  ").isEverything(), true);
    assert.equal(parseLabelSelector(undefined).matches(web), true);
  });

  it("supports =, == and != (which also matches objects without the label)", () => {
    assert.equal(parseLabelSelector("app=web").matches(web), true);
    assert.equal(parseLabelSelector("app==web").matches(db), false);
    assert.equal(parseLabelSelector("env!=prod").matches(web), false);
    assert.equal(parseLabelSelector("env!=prod").matches(db), true);
    assert.equal(parseLabelSelector("app=web,tier=backend").matches(web), false);
  });

  it("supports set-based in, notin, existence and absence", () => {
    assert.equal(parseLabelSelector("app in (web, db)").matches(db), true);
    assert.equal(parseLabelSelector("app in (cache)").matches(db), false);
    assert.equal(parseLabelSelector("env notin (prod)").matches(web), false);
    assert.equal(parseLabelSelector("env notin (prod)").matches(db), true);
    assert.equal(parseLabelSelector("env").matches(web), true);
    assert.equal(parseLabelSelector("env").matches(db), false);
    assert.equal(parseLabelSelector("!env").matches(db), true);
    assert.equal(parseLabelSelector("app=db, !env, tier in (backend)").matches(db), true);
  });

  it("accepts an empty value and prefixed keys", () => {
    assert.equal(parseLabelSelector("app=").matches({ app: "" }), true);
    assert.equal(parseLabelSelector("app=").matches({}), false);
    const zone = parseLabelSelector("topology.kubernetes.io/zone=eu-1a");
    assert.equal(zone.matches({ "topology.kubernetes.io/zone": "eu-1a" }), true);
  });

  it("does not see inherited properties as labels", () => {
    assert.equal(parseLabelSelector("constructor").matches({}), false);
    assert.equal(parseLabelSelector("!toString").matches({}), true);
  });

  it("prints back in Kubernetes syntax", () => {
    assert.equal(parseLabelSelector("a==b, c notin (y,x), !d, e").toString(), "a=b,c notin (x,y),!d,e");
  });

  it("rejects malformed selectors naming the offending part", () => {
    rejects("app in (web", `expected "," or ")" in the set of "app in"`);
    rejects("app in ()", "must not be empty");
    rejects("app in web", `expected "(" after "app in"`);
    rejects("app=web tier=db", `expected "," between requirements, found "tier"`);
    rejects("app=bad value!", "position");
    rejects("-bad=1", `label key "-bad" is not valid`);
    rejects("app=web,", 'expected a label key, found "end of selector"');
    rejects("app=-x", `value "-x" for label "app" is not valid`);
  });
});

describe("labelMatcherFromSelector", () => {
  it("combines matchLabels and matchExpressions", () => {
    const matcher = labelMatcherFromSelector({
      matchLabels: { app: "web" },
      matchExpressions: [
        { key: "env", operator: "In", values: ["prod", "staging"] },
        { key: "legacy", operator: "DoesNotExist" },
        { key: "tier", operator: "Exists" },
        { key: "zone", operator: "NotIn", values: ["b"] },
      ],
    });
    assert.equal(matcher.matches(web), true);
    assert.equal(matcher.matches({ ...web, legacy: "yes" }), false);
    assert.equal(matcher.matches({ ...web, zone: "b" }), false);
    assert.equal(matcher.matches(db), false);
  });

  it("matches nothing for an absent selector and everything for an empty one", () => {
    assert.equal(labelMatcherFromSelector(undefined).matches(web), false);
    assert.equal(labelMatcherFromSelector(null).matches({}), false);
    assert.equal(labelMatcherFromSelector({}).matches(web), true);
  });

  it("rejects bad expressions naming the field", () => {
    assert.throws(
      () => labelMatcherFromSelector({ matchExpressions: [{ key: "a", operator: "In" }] }),
      /matchExpressions\[0\]\.values: must be specified when operator is In/,
    );
    assert.throws(
      () => labelMatcherFromSelector({ matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] }),
      /matchExpressions\[0\]\.values: may not be specified/,
    );
    assert.throws(
      () => labelMatcherFromSelector({ matchExpressions: [{ key: "a", operator: "Equals", values: ["x"] }] }),
      /matchExpressions\[0\]\.operator: "Equals" is not a valid label selector operator/,
    );
  });
});

describe("labelMatcherFromSet", () => {
  it("requires every label of the set", () => {
    const matcher = labelMatcherFromSet({ app: "web", env: "prod" });
    assert.equal(matcher.matches(web), true);
    assert.equal(matcher.matches({ app: "web" }), false);
  });
});
