import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { describe, it } from "node:test";
import { checkTokenTransport } from "./plain-http-tokens.ts";

function request(remoteAddress: string, options: { encrypted?: boolean; token?: boolean } = {}): IncomingMessage {
  const headers = options.token === false ? {} : { authorization: "Bearer abc" };
  return { headers, socket: { remoteAddress, encrypted: options.encrypted ?? false } } as unknown as IncomingMessage;
}

const refusal =
  "bearer tokens are not accepted over plain HTTP: connect with https:// on the same port, trusting the server's certificate authority (the kubeconfig's server and certificate-authority-data, or --server https://… --certificate-authority DATA/ca.crt), or start the server with --insecure-http-tokens";

describe("bearer tokens over plain HTTP", () => {
  it("refuses a token sent in clear, from another machine or this one, saying how to connect", () => {
    for (const address of ["10.1.2.3", "::ffff:192.168.1.9", "127.0.0.1", "::ffff:127.0.0.1", "::1"]) {
      assert.throws(() => checkTokenTransport(request(address), false), { message: refusal }, address);
    }
  });

  it("accepts tokens over TLS, requests without a token, and tokens in clear when the operator asked for it", () => {
    checkTokenTransport(request("10.1.2.3", { encrypted: true }), false);
    checkTokenTransport(request("127.0.0.1", { encrypted: true }), false);
    checkTokenTransport(request("10.1.2.3", { token: false }), false);
    checkTokenTransport(request("127.0.0.1", { token: false }), false);
    checkTokenTransport(request("10.1.2.3"), true);
    checkTokenTransport(request("127.0.0.1"), true);
  });
});
