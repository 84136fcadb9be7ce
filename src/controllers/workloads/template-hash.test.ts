import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { computeTemplateHash, templatesEqualIgnoringHash } from "./template-hash.ts";

const template = {
  metadata: { labels: { app: "web" } },
  spec: { containers: [{ name: "web", image: "nginx:1.25" }] },
};

describe("pod template hash", () => {
  it("is the same for the same template whatever the key order, and spelled without vowels", () => {
    const reordered = {
      spec: { containers: [{ image: "nginx:1.25", name: "web" }] },
      metadata: { labels: { app: "web" } },
    };
    assert.equal(computeTemplateHash(template), computeTemplateHash(reordered));
    assert.match(computeTemplateHash(template), /^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
  });

  it("changes with the template and with the collision count", () => {
    const newer = { ...template, spec: { containers: [{ name: "web", image: "nginx:1.26" }] } };
    assert.notEqual(computeTemplateHash(newer), computeTemplateHash(template));
    assert.notEqual(computeTemplateHash(template, 1), computeTemplateHash(template));
  });

  it("compares templates apart from the pod-template-hash label", () => {
    const labelled = { ...template, metadata: { labels: { app: "web", "pod-template-hash": "abc" } } };
    assert.equal(templatesEqualIgnoringHash(labelled, template), true);
    assert.equal(templatesEqualIgnoringHash({ ...template, metadata: { labels: { app: "db" } } }, template), false);
  });
});
