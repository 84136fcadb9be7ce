import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isApiError } from "../api/errors.ts";
import {
  deleteOptions,
  fieldManagerFor,
  isDryRun,
  listOptions,
  watchOptions,
  watchTimeoutSeconds,
} from "./query-options.ts";

const query = (text: string) => new URLSearchParams(text);

describe("query options", () => {
  it("reads list options, treating resourceVersion=0 as the latest", () => {
    assert.deepEqual(listOptions(query("labelSelector=app%3Dweb&limit=2&resourceVersion=0"), "default"), {
      namespace: "default",
      labelSelector: "app=web",
      limit: 2,
    });
    assert.deepEqual(watchOptions(query("resourceVersion=7&allowWatchBookmarks=true&limit=3"), ""), {
      resourceVersion: "7",
      allowBookmarks: true,
    });
  });

  it("bounds the watch timeout", () => {
    // kube-apiserver --min-request-timeout: 1800 s.
    assert.equal(watchTimeoutSeconds(query("")), 1800);
    assert.equal(watchTimeoutSeconds(query("timeoutSeconds=30")), 30);
    // Twice the minimum request timeout, the longest watch kube-apiserver hands out.
    assert.equal(watchTimeoutSeconds(query("timeoutSeconds=999999")), 3600);
  });

  it("reads delete options from the body, the query winning", () => {
    const body = { gracePeriodSeconds: 30, propagationPolicy: "Foreground", preconditions: { uid: "u1" } };
    assert.deepEqual(deleteOptions(query("gracePeriodSeconds=0"), body), {
      gracePeriodSeconds: 0,
      propagationPolicy: "Foreground",
      preconditions: { uid: "u1" },
    });
  });

  it("names the parameter that is malformed", () => {
    assert.throws(
      () => listOptions(query("limit=-1"), ""),
      (e) => isApiError(e, "BadRequest") && /limit=-1/.test(e.message),
    );
    assert.throws(
      () => deleteOptions(query(""), { propagationPolicy: "Sideways" }),
      (e) => isApiError(e, "BadRequest") && /Sideways/.test(e.message),
    );
    assert.throws(
      () => deleteOptions(query(""), { gracePeriodSeconds: "soon" }),
      (e) => isApiError(e, "BadRequest") && /gracePeriodSeconds/.test(e.message),
    );
  });
});

describe("write options", () => {
  it("reads dryRun=All from the query or a DeleteOptions body and refuses other values with 422", () => {
    assert.equal(isDryRun(query("dryRun=All"), "CreateOptions"), true);
    assert.equal(isDryRun(query(""), "CreateOptions"), false);
    assert.equal(deleteOptions(query(""), { dryRun: ["All"] }).dryRun, true);
    assert.throws(
      () => isDryRun(query("dryRun=true"), "UpdateOptions"),
      (error: unknown) =>
        isApiError(error, "Invalid") &&
        error.message ===
          'UpdateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: "true": supported values: "All"',
    );
    assert.throws(
      () => deleteOptions(query(""), { dryRun: true }),
      (error: unknown) => isApiError(error, "BadRequest"),
    );
  });

  it("names the field manager from the query, else from the User-Agent's product", () => {
    assert.equal(fieldManagerFor(query("fieldManager=helm"), "kubectl/v1.31.0", "PatchOptions"), "helm");
    assert.equal(fieldManagerFor(query(""), "kubectl/v1.31.0 (linux/amd64) kubernetes/abc", "PatchOptions"), "kubectl");
    assert.throws(
      () => fieldManagerFor(query(`fieldManager=${"m".repeat(129)}`), undefined, "CreateOptions"),
      (error: unknown) => isApiError(error, "Invalid") && /fieldManager: Too long/.test(error.message),
    );
  });
});
