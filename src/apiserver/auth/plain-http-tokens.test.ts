import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { describe, it } from "node:test";
import { checkTokenTransport } from "./plain-http-tokens.ts";

function request(remoteAddress: string, options: { encrypted?: boolean; token?: boolean } = {}): IncomingMessage {
  const headers = options.token === false ? {} : { authorization: "Bearer abc" };
  return { headers, socket: { remoteAddress, encrypted: options.encrypted ?? false } } as unknown as IncomingMessage;
}

describe("bearer tokens over plain HTTP", () => {
  it("refuses a token sent in clear from another machine, saying how to connect", () => {
    assert.throws(() => checkTokenTransport(request("10.1.2.3"), false), {
      message:
        "bearer tokens are not accepted over plain HTTP from another machine: connect with https:// on the same port (the kubeconfig's server and certificate authority), or start the server with --insecure-http-tokens",
    });
    assert.throws(() => checkTokenTransport(request("::ffff:192.168.1.9"), false), /not accepted over plain HTTP/);
  });

  it("accepts tokens over TLS, from this machine, without a token, or when the operator asked for it", () => {
    checkTokenTransport(request("10.1.2.3", { encrypted: true }), false);
    checkTokenTransport(request("127.0.0.1"), false);
    checkTokenTransport(request("::ffff:127.0.0.1"), false);
    checkTokenTransport(request("::1"), false);
    checkTokenTransport(request("10.1.2.3", { token: false }), false);
    checkTokenTransport(request("10.1.2.3"), true);
  });
});
