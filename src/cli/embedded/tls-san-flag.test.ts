import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseTlsSanFlags } from "./tls-san-flag.ts";

describe("--tls-san", () => {
  it("takes DNS names, wildcard names and IP addresses, repeated and comma-separated, once each", () => {
    assert.deepEqual(
      parseTlsSanFlags(["api.example.com, 10.0.0.5", "*.kvol.example.com,fd00::1", "API.example.com", "10.0.0.5"]),
      ["api.example.com", "10.0.0.5", "*.kvol.example.com", "fd00::1"],
    );
    assert.deepEqual(parseTlsSanFlags(undefined), []);
  });

  it("names the flag and the value that is wrong", () => {
    const refused: Array<[string, string]> = [
      [
        "api_server",
        `--tls-san: "api_server" is not a valid IP address, DNS name or DNS name with a leading wildcard label (*.example.com)`,
      ],
      [
        "https://api.example.com",
        `--tls-san: "https://api.example.com" is not a valid IP address, DNS name or DNS name with a leading wildcard label (*.example.com)`,
      ],
      [
        "10.0.0.300",
        `--tls-san: "10.0.0.300" is not a valid IP address, DNS name or DNS name with a leading wildcard label (*.example.com)`,
      ],
      [
        "api.*.example.com",
        `--tls-san: "api.*.example.com" is not a valid IP address, DNS name or DNS name with a leading wildcard label (*.example.com)`,
      ],
      ["[fd00::1]", `--tls-san: "[fd00::1]" has brackets; write an IPv6 address without them`],
      [
        "::ffff:10.0.0.1",
        `--tls-san: "::ffff:10.0.0.1" is an IPv6 address with an embedded IPv4 part; write it in hexadecimal groups only`,
      ],
      [",", "--tls-san needs a DNS name or an IP address"],
      ["", "--tls-san needs a DNS name or an IP address"],
    ];
    for (const [value, message] of refused) assert.throws(() => parseTlsSanFlags([value]), { message }, value);
  });
});
