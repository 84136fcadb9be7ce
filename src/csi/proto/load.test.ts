import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { csiMethodDefinition, csiServiceDefinition } from "./load.ts";
import type {
  CreateVolumeRequest,
  NodeGetCapabilitiesResponse,
  NodeGetInfoResponse,
  NodeStageVolumeRequest,
  ProbeResponse,
} from "./types.ts";

/** Encodes a (possibly partial) request and decodes it as a driver would receive it. */
function roundTripRequest<Req>(service: "Identity" | "Controller" | "Node", method: string, request: object): Req {
  const definition = csiMethodDefinition<object, unknown>(service, method);
  return definition.requestDeserialize(definition.requestSerialize(request)) as Req;
}

describe("csi.proto loading", () => {
  test("exposes Identity, Controller and Node with the gRPC paths peers dial", () => {
    assert.equal(csiMethodDefinition("Identity", "Probe").path, "/csi.v1.Identity/Probe");
    assert.equal(csiMethodDefinition("Controller", "CreateVolume").path, "/csi.v1.Controller/CreateVolume");
    assert.equal(csiMethodDefinition("Node", "NodeStageVolume").path, "/csi.v1.Node/NodeStageVolume");
    assert.equal(Object.keys(csiServiceDefinition("Node")).length, 8);
  });

  test("an RPC the proto lacks is named in the error", () => {
    assert.throws(() => csiMethodDefinition("Node", "NodeFormatVolume"), /csi\.v1\.Node has no RPC NodeFormatVolume/);
  });
});

describe("decoded message shape", () => {
  test("absent scalars, lists and maps read as proto3 defaults; absent messages as null", () => {
    const decoded = roundTripRequest<NodeStageVolumeRequest>("Node", "NodeStageVolume", { volumeId: "vol-1" });
    assert.deepEqual(decoded, {
      volumeId: "vol-1",
      publishContext: {},
      stagingTargetPath: "",
      volumeCapability: null,
      secrets: {},
      volumeContext: {},
    });
  });

  test("only the chosen oneof arm is present and enums read as names", () => {
    const decoded = roundTripRequest<NodeStageVolumeRequest>("Node", "NodeStageVolume", {
      volumeCapability: { block: {}, accessMode: { mode: "MULTI_NODE_MULTI_WRITER" } },
    });
    assert.deepEqual(decoded.volumeCapability, { block: {}, accessMode: { mode: "MULTI_NODE_MULTI_WRITER" } });
    assert.equal("mount" in (decoded.volumeCapability ?? {}), false);
  });

  test("int64 byte counts arrive as exact numbers beyond 32 bits", () => {
    const fiveTebibytes = 5 * 2 ** 40;
    const decoded = roundTripRequest<CreateVolumeRequest>("Controller", "CreateVolume", {
      name: "pvc-1",
      capacityRange: { requiredBytes: fiveTebibytes },
    });
    assert.deepEqual(decoded.capacityRange, { requiredBytes: fiveTebibytes, limitBytes: 0 });
  });

  test("an enum number this proto does not know passes through as the number", () => {
    const definition = csiMethodDefinition<unknown, NodeGetCapabilitiesResponse>("Node", "NodeGetCapabilities");
    // capabilities[0].rpc.type = 99, as a newer driver might send it.
    const fromNewerDriver = Buffer.from([0x0a, 0x04, 0x0a, 0x02, 0x08, 0x63]);
    assert.deepEqual(definition.responseDeserialize(fromNewerDriver), { capabilities: [{ rpc: { type: 99 } }] });
  });

  test("wrapper types keep 'unset' apart from false", () => {
    const probe = csiMethodDefinition<ProbeResponse, ProbeResponse>("Identity", "Probe");
    assert.deepEqual(probe.responseDeserialize(probe.responseSerialize({ ready: null })), { ready: null });
    assert.deepEqual(probe.responseDeserialize(probe.responseSerialize({ ready: { value: false } })), {
      ready: { value: false },
    });
  });

  test("properties the proto does not define are not sent", () => {
    const info = csiMethodDefinition<unknown, object>("Node", "NodeGetInfo");
    const decoded = info.responseDeserialize(
      info.responseSerialize({ nodeId: "n1", zone: "z1" }),
    ) as NodeGetInfoResponse;
    assert.deepEqual(decoded, { nodeId: "n1", maxVolumesPerNode: 0, accessibleTopology: null });
  });
});
