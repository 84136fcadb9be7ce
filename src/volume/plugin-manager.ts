/**
 * The volume plugin registry (Kubernetes' VolumePluginMgr). A spec is handed to every registered
 * plugin's `canSupport`; exactly one must accept it. The lookups for capabilities return `undefined`
 * (not an error) when the matching plugin lacks the capability for this spec, as Kubernetes does:
 * "not attachable" is an ordinary answer.
 */

import { errorMessage } from "../runtime/error-message.ts";
import {
  type AttachableVolumePlugin,
  type BlockVolumePlugin,
  type DeviceMountableVolumePlugin,
  isAttachablePlugin,
  isBlockVolumePlugin,
  isDeviceMountablePlugin,
  type VolumePlugin,
} from "./plugin.ts";
import type { VolumeSpec } from "./spec.ts";
import type { VolumeHost } from "./volume-host.ts";

/** `kubernetes.io/nfs`: an optional DNS-subdomain prefix and a name of at most 63 characters. */
const qualifiedNamePattern = /^(?:[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const maxQualifiedNameSuffixLength = 63;
const maxQualifiedNamePrefixLength = 253;

function qualifiedNameProblem(name: string): string | undefined {
  if (name === "") return "volume plugin has empty name";
  const slash = name.lastIndexOf("/");
  const prefix = slash >= 0 ? name.slice(0, slash) : "";
  const suffix = name.slice(slash + 1);
  const invalid =
    !qualifiedNamePattern.test(name) ||
    suffix.length > maxQualifiedNameSuffixLength ||
    prefix.length > maxQualifiedNamePrefixLength;
  return invalid
    ? `volume plugin has invalid name: "${name}": must be a qualified name such as "kubernetes.io/nfs"`
    : undefined;
}

export class VolumePluginManager {
  /** Registration order is kept so that lookups (and their error texts) are deterministic. */
  private readonly plugins = new Map<string, VolumePlugin>();

  /**
   * Registers and initialises `plugins` with `host` (Kubernetes' InitPlugins). Every problem is
   * collected; a bad plugin is skipped and the call throws once all were tried, so the caller sees
   * every mistake at once.
   */
  register(plugins: readonly VolumePlugin[], host: VolumeHost): void {
    const problems: string[] = [];
    for (const plugin of plugins) {
      const problem = this.registrationProblem(plugin.name);
      if (problem !== undefined) {
        problems.push(problem);
        continue;
      }
      try {
        plugin.init(host);
      } catch (err) {
        problems.push(`volume plugin "${plugin.name}" failed to initialise: ${errorMessage(err)}`);
        continue;
      }
      this.plugins.set(plugin.name, plugin);
    }
    if (problems.length > 0) throw new Error(problems.join("; "));
  }

  private registrationProblem(name: string): string | undefined {
    if (this.plugins.has(name)) return `volume plugin "${name}" was registered more than once`;
    return qualifiedNameProblem(name);
  }

  /** The registered plugin names, in registration order. */
  pluginNames(): string[] {
    return [...this.plugins.keys()];
  }

  /** Whether a plugin of this name is registered (a CSI driver may have gone). */
  hasPlugin(name: string): boolean {
    return this.plugins.has(name);
  }

  /** The one plugin whose `canSupport` accepts `spec`. */
  findPluginBySpec(spec: VolumeSpec): VolumePlugin {
    // Every mount, attach and populator pass asks: one walk without intermediate arrays.
    // The list of names is made only from a second match on (an error).
    let match: VolumePlugin | undefined;
    let names: string[] | undefined;
    for (const plugin of this.plugins.values()) {
      if (!plugin.canSupport(spec)) continue;
      if (match === undefined) match = plugin;
      else if (names === undefined) names = [match.name, plugin.name];
      else names.push(plugin.name);
    }
    if (names !== undefined) throw new Error(`multiple volume plugins matched: ${names.join(",")}`);
    if (match === undefined) throw new Error("no volume plugin matched");
    return match;
  }

  findPluginByName(name: string): VolumePlugin {
    const plugin = this.plugins.get(name);
    if (plugin === undefined) throw new Error(`no volume plugin matched name: ${name}`);
    return plugin;
  }

  /** The plugin for `spec` when it can attach this spec; undefined when it cannot. */
  findAttachablePluginBySpec(spec: VolumeSpec): AttachableVolumePlugin | undefined {
    const plugin = this.findPluginBySpec(spec);
    return isAttachablePlugin(plugin) && plugin.canAttach(spec) ? plugin : undefined;
  }

  /** The plugin named `name` when it is attachable at all; undefined otherwise. */
  findAttachablePluginByName(name: string): AttachableVolumePlugin | undefined {
    const plugin = this.findPluginByName(name);
    return isAttachablePlugin(plugin) ? plugin : undefined;
  }

  /** The plugin for `spec` when it mounts a device for this spec; undefined when it does not. */
  findDeviceMountablePluginBySpec(spec: VolumeSpec): DeviceMountableVolumePlugin | undefined {
    const plugin = this.findPluginBySpec(spec);
    return isDeviceMountablePlugin(plugin) && plugin.canDeviceMount(spec) ? plugin : undefined;
  }

  findDeviceMountablePluginByName(name: string): DeviceMountableVolumePlugin | undefined {
    const plugin = this.findPluginByName(name);
    return isDeviceMountablePlugin(plugin) ? plugin : undefined;
  }

  /** The plugin for `spec` when it supports raw block volumes; undefined when it does not. */
  findMapperPluginBySpec(spec: VolumeSpec): BlockVolumePlugin | undefined {
    const plugin = this.findPluginBySpec(spec);
    return isBlockVolumePlugin(plugin) ? plugin : undefined;
  }

  findMapperPluginByName(name: string): BlockVolumePlugin | undefined {
    const plugin = this.findPluginByName(name);
    return isBlockVolumePlugin(plugin) ? plugin : undefined;
  }
}
