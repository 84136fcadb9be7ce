/**
 * Loads `csi.proto` once with @grpc/proto-loader and hands out the service definitions (method
 * paths plus protobuf encoders and decoders) that both CSI transports use.
 */
import { fileURLToPath } from "node:url";
import {
  loadSync,
  type MethodDefinition,
  type Options,
  type PackageDefinition,
  type ServiceDefinition,
} from "@grpc/proto-loader";

export const csiProtoPath = fileURLToPath(new URL("./csi.proto", import.meta.url));

/** The proto package; part of every gRPC path (`/csi.v1.Node/NodeStageVolume`). */
const csiProtoPackage = "csi.v1";

/**
 * How decoded messages look (the TypeScript shapes in `types.ts` follow from these choices):
 * - keepCase false: camelCase field names, the convention of every other kvol object. Names never
 *   travel on the wire, so this changes nothing for peers.
 * - longs Number: the int64 fields are byte counts and attach limits; a number is exact up to
 *   2^53 (8 PiB per volume), beyond any real volume, and lets callers do arithmetic without a
 *   Long or string round trip.
 * - enums String: enum names, readable in logs and timelines; unknown numbers still pass through.
 * - defaults, arrays, objects: absent scalars, lists and maps read as their proto3 defaults (the
 *   wire cannot distinguish them anyway), absent messages as null.
 * - oneofs false: no extra virtual property naming the chosen arm; the arm's presence says it.
 */
const csiLoaderOptions: Options = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  arrays: true,
  objects: true,
  oneofs: false,
};

/** The CSI services kvol serves and calls. GroupController and SnapshotMetadata are in the proto only. */
export type CsiServiceName = "Identity" | "Controller" | "Node";

let loadedPackage: PackageDefinition | undefined;

/** The parsed proto, loaded on first use (parsing takes tens of milliseconds). */
export function csiPackageDefinition(): PackageDefinition {
  loadedPackage ??= loadSync(csiProtoPath, csiLoaderOptions);
  return loadedPackage;
}

function isServiceDefinition(entry: PackageDefinition[string] | undefined): entry is ServiceDefinition {
  return entry !== undefined && !("format" in entry);
}

export function csiServiceDefinition(service: CsiServiceName): ServiceDefinition {
  const qualifiedName = `${csiProtoPackage}.${service}`;
  const entry = csiPackageDefinition()[qualifiedName];
  if (!isServiceDefinition(entry)) {
    throw new Error(`csi.proto defines no service ${qualifiedName}; check ${csiProtoPath}`);
  }
  return entry;
}

/** One RPC's path and codecs; `Req`/`Res` are the shapes from `types.ts`. */
export function csiMethodDefinition<Req, Res>(service: CsiServiceName, method: string): MethodDefinition<Req, Res> {
  const definition = csiServiceDefinition(service)[method];
  if (definition === undefined) {
    throw new Error(`csi.proto service ${csiProtoPackage}.${service} has no RPC ${method}`);
  }
  // proto-loader types its definitions as object-in/object-out; the shapes in types.ts are the
  // decoded form of exactly these messages under csiLoaderOptions.
  return definition as unknown as MethodDefinition<Req, Res>;
}
