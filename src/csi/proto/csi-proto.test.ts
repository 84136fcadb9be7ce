/**
 * Holds csi.proto to the CSI v1.12.0 wire tables: every RPC path, every message's field numbers,
 * types, labels, oneofs and option flags, every enum number, and the tag each field puts on the
 * wire. The proto is parsed by protobufjs through @grpc/proto-loader's descriptors.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { loadSync, type MessageTypeDefinition, type PackageDefinition } from "@grpc/proto-loader";
import type { SpecField } from "./csi-wire-tables.ts";
import { specAlphaMessages, specEnums, specFieldlessMessages, specMessages, specRpcs } from "./csi-wire-tables.ts";
import { csiPackageDefinition, csiProtoPath } from "./load.ts";

interface FieldDescriptor {
  name: string;
  number: number;
  label: string;
  type: string;
  typeName: string;
  options: object | null;
}

interface MessageDescriptor {
  name: string;
  field: FieldDescriptor[];
  nestedType: MessageDescriptor[];
  enumType: EnumDescriptor[];
  oneofDecl: { name: string }[];
  options: { mapEntry?: boolean } | null;
}

interface EnumDescriptor {
  name: string;
  value: { name: string; number: number }[];
}

// Snake-case names exactly as written in the proto, and the virtual property naming a oneof's arm.
const asWritten: PackageDefinition = loadSync(csiProtoPath, { keepCase: true, oneofs: true });

function isMessageDefinition(
  entry: PackageDefinition[string] | undefined,
): entry is MessageTypeDefinition<object, object> {
  return entry !== undefined && entry.format === "Protocol Buffer 3 DescriptorProto";
}

function messageDefinition(name: string): MessageTypeDefinition<object, object> {
  const entry = asWritten[`csi.v1.${name}`];
  assert.ok(isMessageDefinition(entry), `no message ${name}`);
  return entry;
}

function messageDescriptor(dottedName: string): MessageDescriptor {
  const [topLevel = "", ...nested] = dottedName.split(".");
  let descriptor = messageDefinition(topLevel).type as MessageDescriptor;
  for (const part of nested) {
    const child = descriptor.nestedType.find((candidate) => candidate.name === part);
    assert.ok(child, `${dottedName}: no nested message ${part} in ${descriptor.name}`);
    descriptor = child;
  }
  return descriptor;
}

function enumDescriptor(dottedName: string): EnumDescriptor {
  const parts = dottedName.split(".");
  const enumName = parts.pop() ?? "";
  if (parts.length === 0) return asWritten[`csi.v1.${enumName}`]?.type as EnumDescriptor;
  const found = messageDescriptor(parts.join(".")).enumType.find((candidate) => candidate.name === enumName);
  assert.ok(found, `no enum ${dottedName}`);
  return found;
}

const scalarTypes: Record<string, string> = {
  string: "TYPE_STRING",
  bool: "TYPE_BOOL",
  int32: "TYPE_INT32",
  int64: "TYPE_INT64",
};

function lastSegment(dottedName: string): string {
  return dottedName.split(".").at(-1) ?? dottedName;
}

/** Checks one non-map element type (`string`, `enum X.Y`, `google.protobuf.Timestamp`, `Volume`). */
function assertElementType(where: string, field: FieldDescriptor, specType: string): void {
  const scalar = scalarTypes[specType];
  if (scalar !== undefined) {
    assert.equal(field.type, scalar, `${where}: wire type`);
  } else if (specType.startsWith("enum ")) {
    assert.equal(field.type, "TYPE_ENUM", `${where}: enum`);
    assert.equal(lastSegment(field.typeName), lastSegment(specType.slice("enum ".length)), `${where}: enum type`);
  } else if (specType.startsWith("google.protobuf.")) {
    assert.equal(field.type, "TYPE_MESSAGE", `${where}: message`);
    assert.equal(field.typeName, specType, `${where}: well-known type`);
  } else {
    assert.equal(field.type, "TYPE_MESSAGE", `${where}: message`);
    assert.equal(lastSegment(field.typeName), lastSegment(specType), `${where}: message type`);
  }
}

function assertMapOfStrings(where: string, owner: MessageDescriptor, field: FieldDescriptor): void {
  assert.equal(field.label, "LABEL_REPEATED", `${where}: a map is a repeated entry on the wire`);
  const entry = owner.nestedType.find((candidate) => candidate.name === field.typeName);
  assert.ok(entry?.options?.mapEntry, `${where}: map entry type`);
  const entryShape = entry.field.map((part) => [part.name, part.number, part.type]);
  assert.deepEqual(entryShape, [
    ["key", 1, "TYPE_STRING"],
    ["value", 2, "TYPE_STRING"],
  ]);
}

function assertFieldType(where: string, owner: MessageDescriptor, field: FieldDescriptor, spec: SpecField): void {
  if (spec.type === "map<string,string>") {
    assertMapOfStrings(where, owner, field);
    return;
  }
  const repeated = spec.type.startsWith("repeated ");
  assert.equal(field.label, repeated ? "LABEL_REPEATED" : "LABEL_OPTIONAL", `${where}: label`);
  assertElementType(where, field, repeated ? spec.type.slice("repeated ".length) : spec.type);
}

describe("csi.proto services", () => {
  const servicesInSpec = new Set(specRpcs.map((rpc) => rpc.path.split("/")[1]));

  test("serves exactly the spec's RPCs at the spec's paths with the spec's message types", () => {
    for (const rpc of specRpcs) {
      const [, qualifiedService = "", method = ""] = rpc.path.split("/");
      const service = asWritten[qualifiedService];
      assert.ok(service && !("format" in service), `service ${qualifiedService}`);
      const definition = service[method];
      assert.ok(definition, `RPC ${rpc.path}`);
      assert.equal(definition.path, rpc.path);
      assert.equal((definition.requestType.type as MessageDescriptor).name, rpc.request, `${rpc.path} request`);
      assert.equal((definition.responseType.type as MessageDescriptor).name, rpc.response, `${rpc.path} response`);
      assert.equal(definition.requestStream, false, `${rpc.path} is never client-streaming`);
      assert.equal(definition.responseStream, rpc.serverStreaming, `${rpc.path} server streaming`);
      assert.equal(definition.options["(alpha_method)"] === true, rpc.alpha, `${rpc.path} alpha_method`);
    }
    for (const qualifiedService of servicesInSpec) {
      const service = asWritten[qualifiedService ?? ""] ?? {};
      const inSpec = specRpcs.filter((rpc) => rpc.path.startsWith(`/${qualifiedService}/`)).length;
      assert.equal(Object.keys(service).length, inSpec, `${qualifiedService} has no RPC the spec lacks`);
    }
  });
});

describe("csi.proto messages", () => {
  for (const spec of specMessages) {
    test(`${spec.name} has the spec's fields, numbers, types and flags`, () => {
      const descriptor = messageDescriptor(spec.name);
      assert.deepEqual(
        descriptor.field.map((field) => field.name).sort(),
        spec.fields.map((field) => field.name).sort(),
        `${spec.name}: field names`,
      );
      for (const specField of spec.fields) {
        const where = `${spec.name}.${specField.name}`;
        const field = descriptor.field.find((candidate) => candidate.name === specField.name);
        assert.ok(field, where);
        assert.equal(field.number, specField.number, `${where}: field number`);
        assertFieldType(where, descriptor, field, specField);
        // Custom option values are not kept in proto-loader descriptors, but their presence is.
        assert.equal(field.options !== null, (specField.flags ?? []).length > 0, `${where}: csi_secret/alpha_field`);
      }
      const oneofsInSpec = [...new Set(spec.fields.flatMap((field) => (field.oneof ? [field.oneof] : [])))];
      assert.deepEqual(
        descriptor.oneofDecl.map((oneof) => oneof.name),
        oneofsInSpec,
        `${spec.name}: oneof groups`,
      );
    });
  }

  test("field-less messages have no fields", () => {
    for (const name of specFieldlessMessages) assert.deepEqual(messageDescriptor(name).field, [], name);
  });

  test("alpha messages carry alpha_message and no other message carries options", () => {
    for (const spec of specMessages) {
      const isAlpha = specAlphaMessages.includes(spec.name);
      assert.equal(messageDescriptor(spec.name).options !== null, isAlpha, `${spec.name}: alpha_message`);
    }
  });

  test("the proto defines no message the spec does not list", () => {
    const listed = new Set([...specMessages.map((message) => message.name), ...specFieldlessMessages]);
    const defined: string[] = [];
    const collect = (descriptor: MessageDescriptor, prefix: string): void => {
      if (descriptor.options?.mapEntry) return;
      const name = `${prefix}${descriptor.name}`;
      defined.push(name);
      for (const nested of descriptor.nestedType) collect(nested, `${name}.`);
    };
    for (const [qualifiedName, entry] of Object.entries(asWritten)) {
      if (qualifiedName.startsWith("csi.v1.") && isMessageDefinition(entry))
        collect(entry.type as MessageDescriptor, "");
    }
    assert.deepEqual(defined.filter((name) => !listed.has(name)).sort(), []);
    assert.equal(defined.length, listed.size);
  });

  test("every oneof arm is a member of its group on the wire", () => {
    for (const spec of specMessages) {
      if (spec.name.includes(".")) continue; // every oneof in CSI sits in a top-level message
      const definition = messageDefinition(spec.name);
      for (const field of spec.fields.filter((candidate) => candidate.oneof !== undefined)) {
        const decoded = definition.deserialize(definition.serialize({ [field.name]: {} })) as Record<string, unknown>;
        assert.equal(decoded[field.oneof ?? ""], field.name, `${spec.name}.${field.name} in oneof ${field.oneof}`);
      }
    }
  });
});

describe("csi.proto enums", () => {
  for (const spec of specEnums) {
    test(`${spec.name} has exactly the spec's values and numbers`, () => {
      const values = enumDescriptor(spec.name).value.map((value) => ({ name: value.name, number: value.number }));
      assert.deepEqual(values, spec.values);
    });
  }
});

/** Wire type of a field's tag: 0 varint (ints, bools, enums), 2 length-delimited (the rest). */
function wireTypeOf(field: SpecField): number {
  const element = field.type.replace(/^repeated /, "");
  return ["bool", "int32", "int64"].includes(element) || element.startsWith("enum ") ? 0 : 2;
}

function sampleValueOf(field: SpecField): unknown {
  const element = field.type.replace(/^repeated /, "");
  let sample: unknown = {};
  if (field.type === "map<string,string>") return { k: "v" };
  if (element === "string") sample = "x";
  else if (element === "bool") sample = true;
  else if (element === "int32" || element === "int64") sample = 7;
  else if (element.startsWith("enum ")) sample = 1;
  return field.type.startsWith("repeated ") ? [sample] : sample;
}

function camelCaseOf(snakeName: string): string {
  return snakeName.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

describe("the runtime codecs (camelCase names) put the spec's tags on the wire", () => {
  const runtime = csiPackageDefinition();
  for (const spec of specMessages.filter((message) => !message.name.includes("."))) {
    test(spec.name, () => {
      const definition = runtime[`csi.v1.${spec.name}`] as MessageTypeDefinition<object, object>;
      for (const field of spec.fields) {
        const bytes = definition.serialize({ [camelCaseOf(field.name)]: sampleValueOf(field) });
        const expectedTag = (field.number << 3) | wireTypeOf(field);
        assert.equal(bytes[0], expectedTag, `${spec.name}.${field.name}: first tag byte`);
      }
    });
  }

  test("NodeStageVolumeRequest.staging_target_path travels as field 3", () => {
    const definition = runtime["csi.v1.NodeStageVolumeRequest"] as MessageTypeDefinition<object, object>;
    const bytes = definition.serialize({ stagingTargetPath: "/s" });
    assert.deepEqual([...bytes], [0x1a, 0x02, 0x2f, 0x73]);
  });
});
