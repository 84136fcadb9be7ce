import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  configKeyProblems,
  dns1123LabelProblems,
  dns1123SubdomainProblems,
  labelValueProblems,
  nameIsDnsSubdomain,
  percentProblems,
  qualifiedNameProblems,
  regexMessage,
} from "./names.ts";
import { dnsLabelMessage, dnsSubdomainMessage } from "./testing/test-support.ts";

describe("DNS names", () => {
  it("accepts labels and subdomains Kubernetes accepts", () => {
    assert.deepEqual(dns1123LabelProblems("data-0"), []);
    assert.deepEqual(dns1123SubdomainProblems("hostpath.csi.k8s.io"), []);
  });

  it("words a bad label as Kubernetes does, double space included", () => {
    assert.deepEqual(dns1123LabelProblems("Data_0"), [dnsLabelMessage]);
  });

  it("says a subdomain is not a label because of its dots", () => {
    assert.deepEqual(dns1123LabelProblems("my.volume"), ["must not contain dots"]);
  });

  it("reports length and format separately", () => {
    assert.deepEqual(dns1123LabelProblems("a".repeat(64)), ["must be no more than 63 characters"]);
    assert.deepEqual(dns1123SubdomainProblems(`${"a".repeat(254)}-`), [
      "must be no more than 253 characters",
      dnsSubdomainMessage,
    ]);
  });

  it("lets a generateName end in a dash", () => {
    assert.deepEqual(nameIsDnsSubdomain("data-", true), []);
    assert.deepEqual(nameIsDnsSubdomain("data-", false), [dnsSubdomainMessage]);
  });
});

describe("qualified names and label values", () => {
  it("accepts prefixed keys", () => {
    assert.deepEqual(qualifiedNameProblems("app.kubernetes.io/name"), []);
    assert.deepEqual(qualifiedNameProblems("kubernetes.io/pvc-protection"), []);
  });

  it("words each part's problem", () => {
    assert.deepEqual(qualifiedNameProblems("/name"), ["prefix part must be non-empty"]);
    assert.deepEqual(qualifiedNameProblems("Example.com/name"), [`prefix part ${dnsSubdomainMessage}`]);
    assert.deepEqual(qualifiedNameProblems("-bad"), [
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
    assert.equal(qualifiedNameProblems("a/b/c")[0]?.startsWith("a qualified name must consist"), true);
  });

  it("allows empty label values but not long ones", () => {
    assert.deepEqual(labelValueProblems(""), []);
    assert.deepEqual(labelValueProblems("x".repeat(64)), ["must be no more than 63 characters"]);
  });
});

describe("config keys and percentages", () => {
  it("accepts file-name-like keys and refuses the rest", () => {
    assert.deepEqual(configKeyProblems("tls.crt"), []);
    assert.deepEqual(configKeyProblems(".."), ["must not be '..'"]);
    assert.deepEqual(configKeyProblems("a/b"), [
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ]);
  });

  it("checks percentages", () => {
    assert.deepEqual(percentProblems("25%"), []);
    assert.equal(percentProblems("25").length, 1);
  });

  it("writes a regex message without examples", () => {
    assert.equal(regexMessage("bad", "[a-z]+"), "bad (regex used for validation is '[a-z]+')");
  });
});
