/**
 * Endpoints validation (core's ValidateEndpoints): each subset's addresses are IP addresses and
 * its ports valid port numbers with a known protocol.
 */
import type { FieldCause } from "../errors.ts";
import { checkOneOf } from "./field-checks.ts";
import { invalid, required } from "./field-errors.ts";
import { child } from "./field-path.ts";
import { type JsonObject, readInteger, readObjectList, readString } from "./json-reader.ts";
import { nameIsDnsSubdomain } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";
import { checkPortNumber, isIpAddress, serviceProtocols } from "./service.ts";

const endpointsMeta: MetaRules = { namespaced: true, nameRule: nameIsDnsSubdomain };

function validateAddresses(subset: JsonObject, field: string, path: string, out: FieldCause[]): void {
  for (const { value: address, path: addressPath } of readObjectList(subset[field], child(path, field), out)) {
    const ipPath = child(addressPath, "ip");
    const ip = readString(address.ip, ipPath, out) ?? "";
    if (ip === "") out.push(required(ipPath));
    else if (!isIpAddress(ip)) out.push(invalid(ipPath, ip, "must be a valid IP address"));
  }
}

export function validateEndpoints(endpoints: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(endpoints.metadata, endpointsMeta, out);
  for (const { value: subset, path } of readObjectList(endpoints.subsets, "subsets", out)) {
    validateAddresses(subset, "addresses", path, out);
    validateAddresses(subset, "notReadyAddresses", path, out);
    for (const { value: port, path: portPath } of readObjectList(subset.ports, child(path, "ports"), out)) {
      checkPortNumber(readInteger(port.port, child(portPath, "port"), out), child(portPath, "port"), out);
      const protocolPath = child(portPath, "protocol");
      const protocol = readString(port.protocol, protocolPath, out);
      if (protocol === undefined) out.push(required(protocolPath));
      checkOneOf(protocol, serviceProtocols, protocolPath, out);
    }
  }
}

export function validateEndpointsUpdate(endpoints: JsonObject, old: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(endpoints.metadata, old.metadata, out);
  validateEndpoints(endpoints, out);
}
