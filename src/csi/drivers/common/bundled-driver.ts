/**
 * What every bundled driver hands out: its three services, usable separately (a controller on
 * one host, node plugins on others) or together behind one socket, and the lifecycle of its node
 * plugin "container" — `stop()` is the container going away, `start()` a new one coming up.
 */
import type { CsiController, CsiIdentity, CsiImplementations, CsiNode } from "../../grpc/services.ts";

export interface BundledDriver extends CsiImplementations {
  readonly name: string;
  readonly identity: CsiIdentity;
  readonly controller: CsiController;
  readonly node: CsiNode;
  /** Called once the driver is about to serve (after a restart: re-establishes what it can). */
  start(): Promise<void>;
  /** The plugin container stops: whatever runs inside it stops too. */
  stop(): Promise<void>;
}
