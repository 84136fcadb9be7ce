/**
 * Service validation (core's ValidateService), for the fields kvol reads: the type, the ports
 * (1–65535, a protocol Kubernetes knows, names when there are several), and a cluster IP that
 * is an address or `None` and never changes once set.
 */
import type { FieldCause } from "../errors.ts";
import { checkOneOf, inclusiveRangeMessage } from "./field-checks.ts";
import { duplicate, invalid, required } from "./field-errors.ts";
import { child, index } from "./field-path.ts";
import {
  type JsonObject,
  readInteger,
  readIntOrString,
  readObject,
  readObjectList,
  readString,
} from "./json-reader.ts";
import { validateLabels } from "./labels.ts";
import { nameIsDnsLabel } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";

const serviceMeta: MetaRules = { namespaced: true, nameRule: nameIsDnsLabel };
const serviceTypes = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"] as const;
export const serviceProtocols = ["SCTP", "TCP", "UDP"] as const;
const maxPort = 65535;
const headlessClusterIp = "None";
const ipMessage = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
const ipv4Pattern = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** An IPv4 or IPv6 address (IPv6 loosely: hex groups and colons). */
export function isIpAddress(value: string): boolean {
  return ipv4Pattern.test(value) || (value.includes(":") && /^[0-9a-fA-F:.]+$/.test(value));
}

/** A port number in 1–65535. */
export function checkPortNumber(value: number | undefined, path: string, out: FieldCause[]): void {
  if (value !== undefined && (value < 1 || value > maxPort))
    out.push(invalid(path, value, inclusiveRangeMessage(1, maxPort)));
}

function validatePorts(spec: JsonObject, path: string, out: FieldCause[]): void {
  const ports = readObjectList(spec.ports, path, out);
  const names = new Set<string>();
  for (const { value: port, path: portPath } of ports) {
    const name = readString(port.name, child(portPath, "name"), out) ?? "";
    if (ports.length > 1 && name === "") out.push(required(child(portPath, "name")));
    if (name !== "" && names.has(name)) out.push(duplicate(child(portPath, "name"), name));
    names.add(name);
    const portNumberPath = child(portPath, "port");
    const number = readInteger(port.port, portNumberPath, out);
    if (number === undefined) out.push(required(portNumberPath));
    checkPortNumber(number, portNumberPath, out);
    const protocolPath = child(portPath, "protocol");
    checkOneOf(readString(port.protocol, protocolPath, out), serviceProtocols, protocolPath, out);
    const target = readIntOrString(port.targetPort, child(portPath, "targetPort"), out);
    if (typeof target === "number" && target !== 0) checkPortNumber(target, child(portPath, "targetPort"), out);
  }
}

export function validateService(service: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(service.metadata, serviceMeta, out);
  const spec = readObject(service.spec, "spec", out) ?? {};
  const typePath = "spec.type";
  const type = readString(spec.type, typePath, out) ?? "ClusterIP";
  checkOneOf(type, serviceTypes, typePath, out);
  const clusterIp = readString(spec.clusterIP, "spec.clusterIP", out) ?? "";
  if (clusterIp !== "" && clusterIp !== headlessClusterIp && !isIpAddress(clusterIp)) {
    out.push(invalid("spec.clusterIP", clusterIp, ipMessage));
  }
  const headless = clusterIp === headlessClusterIp;
  if (readObjectList(spec.ports, "spec.ports", []).length === 0 && !headless && type !== "ExternalName") {
    out.push(required("spec.ports"));
  }
  validatePorts(spec, "spec.ports", out);
  validateLabels(spec.selector, "spec.selector", out);
  if (type === "ExternalName" && (readString(spec.externalName, "spec.externalName", out) ?? "") === "") {
    out.push(required("spec.externalName"));
  }
}

export function validateServiceUpdate(service: JsonObject, old: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(service.metadata, old.metadata, out);
  validateService(service, out);
  const oldIp = readString(readObject(old.spec, "", [])?.clusterIP, "", []) ?? "";
  const newIp = readString(readObject(service.spec, "", [])?.clusterIP, "", []) ?? "";
  if (oldIp !== "" && newIp !== oldIp)
    out.push(invalid(index(child("spec", "clusterIPs"), 0), [newIp], "may not change once set"));
}
