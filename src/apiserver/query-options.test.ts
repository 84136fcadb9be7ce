import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isApiError } from "../api/errors.ts";
import { defaultWatchTimeoutSeconds, maxWatchTimeoutSeconds } from "./constants.ts";
import { deleteOptions, listOptions, watchOptions, watchTimeoutSeconds } from "./query-options.ts";

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
    assert.equal(watchTimeoutSeconds(query("")), defaultWatchTimeoutSeconds);
    assert.equal(watchTimeoutSeconds(query("timeoutSeconds=30")), 30);
    assert.equal(watchTimeoutSeconds(query("timeoutSeconds=999999")), maxWatchTimeoutSeconds);
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
