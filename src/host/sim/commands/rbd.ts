/**
 * The `rbd` CLI (ceph-common) for the kernel RBD client: `map`, `unmap`, `status`, `showmapped`, with
 * the image given as `pool/image` or `image --pool pool` (default pool `rbd`). Mapping makes this
 * node's client a watcher of the image and creates /dev/rbdN; `status` prints the watchers exactly as
 * the in-tree plugin parses them (seed 004). Exit statuses are the errno numbers rbd returns.
 */
import type { CommandResult } from "../../host.ts";
import type { BlockDevice } from "../devices.ts";
import type { BootState } from "../sim-kernel.ts";
import type { RbdClientInstance, RbdImage } from "../world/rbd-cluster.ts";
import { type CommandContext, type CommandHandler, failed, succeeded } from "./command-context.ts";

const defaultPool = "rbd";
/** errno numbers rbd exits with. */
const enoent = 2;
const ebusy = 16;
const einval = 22;
const eshutdown = 108;
const maxNonce = 2 ** 32 - 1;

interface RbdRequest {
  subcommand: string;
  spec: string | undefined;
  pool: string;
  image: string;
  readOnly: boolean;
  exclusive: boolean;
}

export const rbdCommand: CommandHandler = async (context, args) => {
  const request = parseRbdArgs(args);
  switch (request.subcommand) {
    case "map":
      return map(context, request);
    case "unmap":
      return unmap(context, request);
    case "status":
      return status(context, request);
    case "showmapped":
      return showMapped(context.state);
    default:
      return failed(einval, `rbd: error parsing command '${request.subcommand}'; -h or --help for usage\n`);
  }
};

function map(context: CommandContext, request: RbdRequest): CommandResult {
  const image = context.kernel.env.rbd.image(request.pool, request.image);
  if (image === undefined) {
    return failed(enoent, `${openError(request)}rbd: map failed: (2) No such file or directory\n`);
  }
  const client = clientOf(context);
  const cluster = context.kernel.env.rbd;
  if (cluster.isFenced(client)) {
    return failed(
      eshutdown,
      "rbd: sysfs write failed\nrbd: map failed: (108) Cannot send after transport endpoint shutdown\n",
    );
  }
  if (request.exclusive && image.watchers.some((watcher) => watcher.client !== client)) {
    return failed(ebusy, "rbd: sysfs write failed\nrbd: map failed: (16) Device or resource busy\n");
  }
  cluster.watch(image, client);
  const device = context.state.devices.add({
    kind: "rbd",
    storage: image.storage,
    readOnly: request.readOnly,
    rbd: { pool: image.pool, image: image.name },
  });
  return succeeded(`${device.path}\n`);
}

async function unmap(context: CommandContext, request: RbdRequest): Promise<CommandResult> {
  const device = await mappedDevice(context, request);
  if (device === undefined) {
    return failed(
      einval,
      `rbd: ${request.spec ?? ""}: not a mapped image or snapshot\nrbd: unmap failed: (22) Invalid argument\n`,
    );
  }
  if (context.kernel.mountsOfDevice(device).length > 0) {
    return failed(ebusy, "rbd: sysfs write failed\nrbd: unmap failed: (16) Device or resource busy\n");
  }
  context.state.devices.remove(device);
  const image = device.rbd === undefined ? undefined : context.kernel.env.rbd.image(device.rbd.pool, device.rbd.image);
  const client = context.state.rbdClient;
  const stillMapped = context.state.devices
    .list()
    .some((other) => other.kind === "rbd" && other.storage === device.storage);
  if (image !== undefined && client !== undefined && !stillMapped) context.kernel.env.rbd.unwatch(image, client);
  return succeeded();
}

function status(context: CommandContext, request: RbdRequest): CommandResult {
  const image = context.kernel.env.rbd.image(request.pool, request.image);
  if (image === undefined) return failed(enoent, openError(request));
  return succeeded(watchersText(image));
}

/** `Watchers: none`, or one `\twatcher=<addr> client.<id> cookie=<n>` line per watcher. */
export function watchersText(image: RbdImage): string {
  if (image.watchers.length === 0) return "Watchers: none\n";
  const lines = image.watchers.map(
    (watcher) => `\twatcher=${watcher.client.address} client.${watcher.client.clientId} cookie=${watcher.cookie}\n`,
  );
  return `Watchers:\n${lines.join("")}`;
}

function showMapped(state: BootState): CommandResult {
  const rows = state.devices
    .list()
    .filter((device) => device.kind === "rbd")
    .map(
      (device, index) =>
        `${index}   ${device.rbd?.pool ?? ""}             ${device.rbd?.image ?? ""}  -     ${device.path}\n`,
    );
  return succeeded(rows.length === 0 ? "" : `id  pool  namespace  image  snap  device\n${rows.join("")}`);
}

async function mappedDevice(context: CommandContext, request: RbdRequest): Promise<BlockDevice | undefined> {
  if (request.spec?.startsWith("/dev/")) {
    const device = context.state.devices.list().find((candidate) => candidate.path === request.spec);
    return device?.kind === "rbd" ? device : undefined;
  }
  return context.state.devices
    .list()
    .find((device) => device.rbd?.pool === request.pool && device.rbd.image === request.image);
}

/** This boot's kernel client, connected on first use with a fresh nonce. */
function clientOf(context: CommandContext): RbdClientInstance {
  const state = context.state;
  if (state.rbdClient === undefined) {
    const nonce = context.kernel.env.rng.int(0, maxNonce);
    state.rbdClient = context.kernel.env.rbd.connect(context.kernel.nodeName, context.kernel.options.address, nonce);
  }
  return state.rbdClient;
}

function openError(request: RbdRequest): string {
  return `rbd: error opening image ${request.image}: (2) No such file or directory\n`;
}

function parseRbdArgs(args: readonly string[]): RbdRequest {
  const positionals: string[] = [];
  let pool: string | undefined;
  let readOnly = false;
  let exclusive = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? "";
    if (arg === "--pool" || arg === "-p") pool = args[++index];
    else if (arg.startsWith("--pool=")) pool = arg.slice("--pool=".length);
    else if (arg === "-o" || arg === "--options") {
      const options = (args[++index] ?? "").split(",");
      readOnly ||= options.includes("ro") || options.includes("read_only");
      exclusive ||= options.includes("exclusive");
    } else if (arg === "--read-only") readOnly = true;
    else if (arg === "--exclusive") exclusive = true;
    else if (arg === "-m" || arg === "--id" || arg === "--user" || arg === "--keyring" || arg === "-c") index++;
    else if (!arg.startsWith("-")) positionals.push(arg);
  }
  const [subcommand = "", spec] = positionals;
  const slash = spec?.startsWith("/dev/") ? -1 : (spec?.indexOf("/") ?? -1);
  return {
    subcommand,
    spec,
    pool: slash > 0 && spec !== undefined ? spec.slice(0, slash) : (pool ?? defaultPool),
    image: slash > 0 && spec !== undefined ? spec.slice(slash + 1) : (spec ?? ""),
    readOnly,
    exclusive,
  };
}
