/**
 * Containers and init containers (core's validateContainers): names, images, resources, and the
 * storage-facing part — every volumeMount and volumeDevice must name a volume of the pod, mount
 * paths and device paths must be unique, and one volume cannot be both mounted and a raw device.
 */
import type { FieldCause } from "../errors.ts";
import type { Quantity } from "../quantity.ts";
import { checkDnsLabel, checkLocalDescendingPath, checkOneOf, negativeMessage } from "./field-checks.ts";
import { duplicate, forbidden, invalid, notFound, required } from "./field-errors.ts";
import { child, key } from "./field-path.ts";
import {
  type JsonObject,
  type ListEntry,
  listLength,
  readBoolean,
  readObject,
  readObjectList,
  readString,
} from "./json-reader.ts";
import { claimSourceTypes, type PodVolumes } from "./pod-volumes.ts";
import { readResourceList } from "./quantity-field.ts";

const mountPropagationModes = ["Bidirectional", "HostToContainer", "None"] as const;
const pullPolicies = ["Always", "IfNotPresent", "Never"] as const;
const terminationMessagePolicies = ["File", "FallbackToLogsOnError"] as const;

/** name → path of a container's mounts or devices. */
type PathsByName = ReadonlyMap<string, string>;

function pathsByName(entries: readonly ListEntry[], pathField: string): PathsByName {
  const paths = new Map<string, string>();
  for (const { value } of entries) {
    if (typeof value.name === "string" && typeof value[pathField] === "string") paths.set(value.name, value[pathField]);
  }
  return paths;
}

function hasPath(paths: PathsByName, target: string): boolean {
  return [...paths.values()].includes(target);
}

function isPrivileged(container: JsonObject): boolean {
  return readObject(container.securityContext, "", [])?.privileged === true;
}

function validateMount(mount: ListEntry, container: JsonObject, context: MountContext, out: FieldCause[]): void {
  const { value, path } = mount;
  const name = readString(value.name, child(path, "name"), out) ?? "";
  const mountPath = readString(value.mountPath, child(path, "mountPath"), out) ?? "";
  if (name === "") out.push(required(child(path, "name")));
  else if (!context.volumes.has(name)) out.push(notFound(child(path, "name"), name));
  if (mountPath === "") out.push(required(child(path, "mountPath")));
  if (context.mountPaths.has(mountPath)) out.push(invalid(child(path, "mountPath"), mountPath, "must be unique"));
  context.mountPaths.add(mountPath);
  if (context.devices.has(name))
    out.push(invalid(child(path, "name"), name, "must not already exist in volumeDevices"));
  if (hasPath(context.devices, mountPath)) {
    out.push(invalid(child(path, "mountPath"), mountPath, "must not already exist as a path in volumeDevices"));
  }
  readBoolean(value.readOnly, child(path, "readOnly"), out);
  const subPath = readString(value.subPath, child(path, "subPath"), out) ?? "";
  const subPathExpr = readString(value.subPathExpr, child(path, "subPathExpr"), out) ?? "";
  if (subPath !== "") checkLocalDescendingPath(subPath, child(path, "subPath"), out);
  if (subPathExpr !== "" && subPath !== "") {
    out.push(invalid(child(path, "subPathExpr"), subPathExpr, "subPathExpr and subPath are mutually exclusive"));
  }
  if (subPathExpr !== "") checkLocalDescendingPath(subPathExpr, child(path, "subPathExpr"), out);
  validateMountPropagation(value, container, child(path, "mountPropagation"), out);
}

function validateMountPropagation(mount: JsonObject, container: JsonObject, path: string, out: FieldCause[]): void {
  const propagation = readString(mount.mountPropagation, path, out);
  checkOneOf(propagation, mountPropagationModes, path, out);
  if (propagation === "Bidirectional" && !isPrivileged(container)) {
    out.push(forbidden(path, "Bidirectional mount propagation is available only to privileged containers"));
  }
}

function validateDevice(device: ListEntry, context: MountContext, out: FieldCause[]): void {
  const { value, path } = device;
  const namePath = child(path, "name");
  const devicePathPath = child(path, "devicePath");
  const name = readString(value.name, namePath, out) ?? "";
  const devicePath = readString(value.devicePath, devicePathPath, out) ?? "";
  const sourceType = context.volumes.get(name);
  if (name === "") out.push(required(namePath));
  if (context.deviceNames.has(name)) out.push(invalid(namePath, name, "must be unique"));
  if (sourceType !== undefined && !claimSourceTypes.has(sourceType)) {
    out.push(
      invalid(namePath, name, "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode"),
    );
  }
  if (sourceType === undefined && name !== "") out.push(notFound(namePath, name));
  if (devicePath === "") out.push(required(devicePathPath));
  if (context.devicePaths.has(devicePath)) out.push(invalid(devicePathPath, devicePath, "must be unique"));
  if (devicePath.split("/").includes("..")) {
    out.push(invalid(devicePathPath, devicePath, "can not contain backsteps ('..')"));
  } else context.devicePaths.add(devicePath);
  if (context.mounts.has(name)) out.push(invalid(namePath, name, "must not already exist in volumeMounts"));
  if (hasPath(context.mounts, devicePath)) {
    out.push(invalid(devicePathPath, devicePath, "must not already exist as a path in volumeMounts"));
  }
  if (name !== "") context.deviceNames.add(name);
}

interface MountContext {
  volumes: PodVolumes;
  mounts: PathsByName;
  devices: PathsByName;
  mountPaths: Set<string>;
  devicePaths: Set<string>;
  deviceNames: Set<string>;
}

function validateVolumeUse(container: JsonObject, path: string, volumes: PodVolumes, out: FieldCause[]): void {
  const mounts = readObjectList(container.volumeMounts, child(path, "volumeMounts"), out);
  const devices = readObjectList(container.volumeDevices, child(path, "volumeDevices"), out);
  const context: MountContext = {
    volumes,
    mounts: pathsByName(mounts, "mountPath"),
    devices: pathsByName(devices, "devicePath"),
    mountPaths: new Set(),
    devicePaths: new Set(),
    deviceNames: new Set(),
  };
  for (const mount of mounts) validateMount(mount, container, context, out);
  for (const device of devices) validateDevice(device, context, out);
}

/** Requests and limits: valid, non-negative quantities, and no request above its limit. */
function validateResources(container: JsonObject, path: string, out: FieldCause[]): void {
  const resourcesPath = child(path, "resources");
  const resources = readObject(container.resources, resourcesPath, out) ?? {};
  const lists = new Map<string, ReadonlyMap<string, Quantity>>();
  for (const listName of ["limits", "requests"]) {
    const listPath = child(resourcesPath, listName);
    const list = readResourceList(resources[listName], listPath, out);
    for (const [resourceName, quantity] of list) {
      if (quantity.sign() < 0) out.push(invalid(key(listPath, resourceName), quantity.toString(), negativeMessage));
    }
    lists.set(listName, list);
  }
  for (const [resourceName, request] of lists.get("requests") ?? []) {
    const limit = lists.get("limits")?.get(resourceName);
    if (limit === undefined || request.compare(limit) <= 0) continue;
    out.push(
      invalid(
        key(child(resourcesPath, "requests"), resourceName),
        request.toString(),
        `must be less than or equal to ${resourceName} limit of ${limit.toString()}`,
      ),
    );
  }
}

function validateContainer(container: JsonObject, path: string, volumes: PodVolumes, out: FieldCause[]): string {
  const namePath = child(path, "name");
  const name = readString(container.name, namePath, out) ?? "";
  if (name === "") out.push(required(namePath));
  else checkDnsLabel(name, namePath, out);
  if ((readString(container.image, child(path, "image"), out) ?? "") === "") out.push(required(child(path, "image")));
  const policyPath = child(path, "terminationMessagePolicy");
  checkOneOf(
    readString(container.terminationMessagePolicy, policyPath, out),
    terminationMessagePolicies,
    policyPath,
    out,
  );
  const pullPath = child(path, "imagePullPolicy");
  checkOneOf(readString(container.imagePullPolicy, pullPath, out), pullPolicies, pullPath, out);
  validateVolumeUse(container, path, volumes, out);
  validateResources(container, path, out);
  return name;
}

/** `spec.containers` and `spec.initContainers` of a pod spec at `specPath`; names unique across both. */
export function validateContainers(spec: JsonObject, specPath: string, volumes: PodVolumes, out: FieldCause[]): void {
  const containersPath = child(specPath, "containers");
  const containers = readObjectList(spec.containers, containersPath, out);
  if (listLength(spec.containers) === 0 && !out.some((cause) => cause.field === containersPath)) {
    out.push(required(containersPath));
  }
  const names = new Set<string>();
  for (const entry of containers) {
    const name = validateContainer(entry.value, entry.path, volumes, out);
    if (names.has(name)) out.push(duplicate(child(entry.path, "name"), name));
    names.add(name);
  }
  for (const entry of readObjectList(spec.initContainers, child(specPath, "initContainers"), out)) {
    const name = validateContainer(entry.value, entry.path, volumes, out);
    if (names.has(name)) out.push(duplicate(child(entry.path, "name"), name));
    else if (name !== "") names.add(name);
  }
}
