import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { describe, it } from "node:test";
import { ApiError } from "../api/errors.ts";
import { negotiateOutput } from "./table-negotiation.ts";

function withAccept(accept: string | undefined): IncomingMessage {
  return { headers: accept === undefined ? {} : { accept } } as IncomingMessage;
}

const none = new URLSearchParams();

describe("output negotiation", () => {
  it("answers JSON when there is no Accept header", () => {
    assert.deepEqual(negotiateOutput(withAccept(undefined), none, true), { serializer: "json" });
  });

  it("serves a kind without a protobuf form (custom-resource-like) in JSON when a later range allows it", () => {
    const choice = negotiateOutput(withAccept("application/vnd.kubernetes.protobuf, */*"), none, false);
    assert.deepEqual(choice, { serializer: "json" });
  });

  it("refuses protobuf-only clients of such a kind with 406, listing JSON and YAML", () => {
    assert.throws(
      () => negotiateOutput(withAccept("application/vnd.kubernetes.protobuf"), none, false),
      (error: unknown) =>
        error instanceof ApiError &&
        error.code === 406 &&
        error.message === "only the following media types are accepted: application/json, application/yaml",
    );
  });

  it("gives kubectl get its Table and honours includeObject", () => {
    const accept =
      "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
    assert.deepEqual(negotiateOutput(withAccept(accept), new URLSearchParams("includeObject=None"), true), {
      serializer: "json",
      table: { apiVersion: "meta.k8s.io/v1", includeObject: "None" },
    });
  });

  it("passes over conversions it does not serve and a stream parameter other than watch", () => {
    const accept =
      "application/json;as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;v=v2,application/json;stream=other,application/yaml";
    assert.deepEqual(negotiateOutput(withAccept(accept), none, true), { serializer: "yaml" });
  });

  it("ignores ranges with q=0", () => {
    const choice = negotiateOutput(withAccept("application/vnd.kubernetes.protobuf;q=0,application/json"), none, true);
    assert.deepEqual(choice, { serializer: "json" });
  });
});
