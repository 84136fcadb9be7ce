/**
 * The kubelet's plugin watcher (pkg/kubelet/pluginmanager): watches `<root>/plugins_registry/` for
 * registration sockets (`<driver>-reg.sock`, created by node-driver-registrar). A new socket is
 * handed to the registration handler — which asks it what it is (GetInfo), then registers the CSI
 * driver (NodeGetInfo, CsiNodeInfo.installDriver) — and a socket that disappears is deregistered.
 * A registration that fails is tried again at the next scan.
 *
 * Kubernetes reacts to inotify events; here the directory is read every `pluginsRegistryPollMs`.
 * Socket files count, and so do regular files named `*.sock`, since a simulated registrar has no
 * way to bind a real socket. Names starting with `.` are ignored, as in Kubernetes.
 */
import type { Host } from "../../host/host.ts";
import { isHostError } from "../../host/host.ts";
import type { Clock, Timer } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import { pluginsRegistryDir } from "../../volume/paths.ts";
import { pluginsRegistryPollMs } from "../constants.ts";

/** Registers and deregisters the plugin behind a registration socket. */
export interface PluginRegistrationHandler {
  register(socketPath: string): Promise<void>;
  deregister(socketPath: string): Promise<void>;
}

interface PluginWatcherOptions {
  host: Host;
  clock: Clock;
  logger: Logger;
  rootDir: string;
  /** Absent until a CSI implementation provides one: sockets are then only logged. */
  handler?: PluginRegistrationHandler;
}

const registryDirMode = 0o750;

export class PluginWatcher {
  private readonly registered = new Set<string>();
  private readonly reportedUnhandled = new Set<string>();
  private timer: Timer | undefined;
  /** `<root>/plugins_registry`, joined once: it is read every second. */
  private readonly registry: string;

  constructor(private readonly options: PluginWatcherOptions) {
    this.registry = pluginsRegistryDir(options.rootDir);
  }

  /** Creates the registry directory and starts scanning it. */
  async start(): Promise<void> {
    await this.options.host.mkdir(this.registryDir(), registryDirMode, { recursive: true });
    this.timer = this.options.clock.every(pluginsRegistryPollMs, () => this.scan());
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** Sockets whose plugin registered successfully. */
  registeredSockets(): string[] {
    return [...this.registered].sort();
  }

  /** One pass: register new sockets, deregister vanished ones. */
  async scan(): Promise<void> {
    const present = await this.socketsPresent();
    for (const socketPath of present) if (!this.registered.has(socketPath)) await this.register(socketPath);
    for (const socketPath of [...this.registered]) {
      if (!present.has(socketPath)) await this.deregister(socketPath);
    }
  }

  private registryDir(): string {
    return this.registry;
  }

  private async socketsPresent(): Promise<Set<string>> {
    const { host } = this.options;
    const found = new Set<string>();
    let names: string[];
    try {
      names = await host.readdir(this.registryDir());
    } catch (error) {
      if (isHostError(error, "ENOENT")) return found;
      throw error;
    }
    for (const name of names) {
      if (name.startsWith(".")) continue;
      // A name readdir gave joins the normalised directory without normalising.
      const path = `${this.registry}/${name}`;
      const stat = await host.lstat(path);
      if (stat.type === "socket" || (stat.type === "file" && name.endsWith(".sock"))) found.add(path);
    }
    return found;
  }

  private async register(socketPath: string): Promise<void> {
    const { handler, logger } = this.options;
    if (handler === undefined) {
      if (!this.reportedUnhandled.has(socketPath)) {
        logger.info("Plugin registration socket found, but no registration handler is installed", { socketPath });
        this.reportedUnhandled.add(socketPath);
      }
      return;
    }
    try {
      await handler.register(socketPath);
      this.registered.add(socketPath);
      logger.info("Registered plugin", { socketPath });
    } catch (error) {
      logger.error("RegisterPlugin error -- failed to add plugin", { socketPath, error });
    }
  }

  private async deregister(socketPath: string): Promise<void> {
    this.registered.delete(socketPath);
    try {
      await this.options.handler?.deregister(socketPath);
      this.options.logger.info("Deregistered plugin", { socketPath });
    } catch (error) {
      this.options.logger.error("DeRegisterPlugin error -- failed to deregister plugin", { socketPath, error });
    }
  }
}
