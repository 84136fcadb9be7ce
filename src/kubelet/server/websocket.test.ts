import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { channelMessage, negotiateStreamProtocol, parseChannelMessage, remoteCommandStatus } from "./remote-command.ts";
import {
  acceptKey,
  encodeFrame,
  FrameParser,
  MessageAssembler,
  maxWebSocketMessageBytes,
  opcode,
} from "./websocket.ts";

const mask = Buffer.from([0x37, 0xfa, 0x21, 0x3d]);

describe("WebSocket frames (RFC 6455)", () => {
  it("answers the RFC's sample key with the RFC's accept value", () => {
    assert.equal(acceptKey("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  });

  it("unmasks the RFC's masked 'Hello' frame", () => {
    const frame = Buffer.from([0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]);
    const [hello] = new FrameParser().push(frame);
    assert.deepEqual(hello, { fin: true, opcode: opcode.text, payload: Buffer.from("Hello") });
  });

  it("writes a server's frame unmasked, with a 16-bit and a 64-bit length where needed", () => {
    assert.deepEqual(
      encodeFrame(opcode.text, Buffer.from("Hello")),
      Buffer.from([0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]),
    );
    const medium = encodeFrame(opcode.binary, Buffer.alloc(256));
    assert.deepEqual([...medium.subarray(0, 4)], [0x82, 126, 0x01, 0x00]);
    const large = encodeFrame(opcode.binary, Buffer.alloc(65_536));
    assert.deepEqual([...large.subarray(0, 10)], [0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0]);
    const [parsed] = new FrameParser("server").push(large);
    assert.equal(parsed?.payload.length, 65_536);
  });

  it("reads frames split anywhere across chunks, and several in one chunk", () => {
    const bytes = Buffer.concat([
      encodeFrame(opcode.binary, Buffer.from("one"), mask),
      encodeFrame(opcode.binary, Buffer.alloc(300, 7), mask),
    ]);
    const parser = new FrameParser();
    const frames = [...bytes].flatMap((byte) => parser.push(Buffer.from([byte])));
    assert.deepEqual(
      frames.map((frame) => frame.payload.length),
      [3, 300],
    );
    assert.equal(frames[0]?.payload.toString(), "one");
  });

  it("refuses a client frame that is not masked, and one larger than the bound", () => {
    assert.throws(() => new FrameParser().push(encodeFrame(opcode.binary, Buffer.from("x"))), /not masked/);
    const header = Buffer.from([0x82, 0xff, 0, 0, 0, 0, 0x40, 0, 0, 0]);
    assert.ok(maxWebSocketMessageBytes < 0x40000000);
    assert.throws(() => new FrameParser().push(header), /too big/);
  });

  it("joins a fragmented message", () => {
    const assembler = new MessageAssembler();
    assert.equal(assembler.add({ fin: false, opcode: opcode.binary, payload: Buffer.from("ab") }), undefined);
    assert.deepEqual(assembler.add({ fin: true, opcode: opcode.continuation, payload: Buffer.from("c") }), {
      opcode: opcode.binary,
      data: Buffer.from("abc"),
    });
  });
});

describe("kubectl's stream channels", () => {
  it("tag each message with its channel: 0 stdin, 1 stdout, 2 stderr, 3 error, 4 resize, 255 close", () => {
    assert.deepEqual([...channelMessage(1, "hi")], [1, 0x68, 0x69]);
    assert.deepEqual(parseChannelMessage(Buffer.from([255, 0])), { channel: 255, data: Buffer.from([0]) });
    assert.deepEqual(parseChannelMessage(Buffer.from([4, 0x7b, 0x7d])), { channel: 4, data: Buffer.from("{}") });
    assert.equal(parseChannelMessage(Buffer.alloc(0)), undefined);
  });

  it("pick v5, then v4, in the client's order, and nothing else", () => {
    assert.equal(negotiateStreamProtocol(["v5.channel.k8s.io", "v4.channel.k8s.io"]), "v5.channel.k8s.io");
    assert.equal(negotiateStreamProtocol(["v4.channel.k8s.io", "v5.channel.k8s.io"]), "v4.channel.k8s.io");
    assert.equal(negotiateStreamProtocol(["channel.k8s.io", "base64.channel.k8s.io"]), undefined);
  });

  it("end with a Status kubectl turns into its exit code: NonZeroExitCode with an ExitCode cause", () => {
    assert.deepEqual(remoteCommandStatus({ exitCode: 0 }), { metadata: {}, status: "Success" });
    assert.deepEqual(remoteCommandStatus({ exitCode: 3 }), {
      metadata: {},
      status: "Failure",
      message: "command terminated with non-zero exit code: command terminated with exit code 3",
      reason: "NonZeroExitCode",
      details: { causes: [{ reason: "ExitCode", message: "3" }] },
    });
  });
});
