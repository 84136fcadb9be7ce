/**
 * What every plugin does the same way: keep the VolumeHost it was initialised with and reach the
 * node side of it. A plugin used before `init` fails with its name in the message.
 */
import { type NodeVolumeContext, requireNode, type VolumeHost } from "../volume-host.ts";

export abstract class PluginBase {
  abstract readonly name: string;
  private volumeHost: VolumeHost | undefined;

  init(host: VolumeHost): void {
    this.volumeHost = host;
  }

  /** The VolumeHost given to `init`. */
  get host(): VolumeHost {
    if (this.volumeHost === undefined) throw new Error(`volume plugin ${this.name} was used before init`);
    return this.volumeHost;
  }

  /** The node this plugin runs on; `what` names the call that needs it. */
  node(what: string): NodeVolumeContext {
    return requireNode(this.host, `${this.name}: ${what}`);
  }
}
