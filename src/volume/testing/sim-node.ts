/**
 * A simulated node ready for plugin tests: a SimWorld on a VirtualClock, one SimHost, the Mounter
 * over it, and a VolumeHost with an in-memory API. Everything is deterministic for a given seed.
 */

import { Mounter } from "../../host/mount/mounter.ts";
import type { SimHost } from "../../host/sim/sim-host.ts";
import { type SimNodeOptions, SimWorld } from "../../host/sim/sim-world.ts";
import type { Clock } from "../../runtime/clock.ts";
import { Rng } from "../../runtime/rng.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { defaultKubeletRootDir } from "../paths.ts";
import type { NodeVolumeContext, VolumeHost } from "../volume-host.ts";
import { InMemoryVolumeApi } from "./in-memory-volume-api.ts";
import { type RecordedCommand, recordCommands } from "./recording-host.ts";
import { RecordingLogger } from "./recording-logger.ts";

export interface SimNodeFixture {
  clock: VirtualClock;
  world: SimWorld;
  host: SimHost;
  /** Every command plugins ran on the node, in order. */
  commands: RecordedCommand[];
  mounter: Mounter;
  logger: RecordingLogger;
  api: InMemoryVolumeApi;
  node: NodeVolumeContext;
  volumeHost: VolumeHost;
  rootDir: string;
}

export interface SimNodeFixtureOptions extends SimNodeOptions {
  nodeName?: string;
  seed?: number;
  /** Share a world (and clock) with another fixture: a second node of the same cluster. */
  world?: SimWorld;
  allocatable?: Record<string, string>;
}

export async function simNode(options: SimNodeFixtureOptions = {}): Promise<SimNodeFixture> {
  const clock = (options.world?.clock as VirtualClock | undefined) ?? new VirtualClock();
  const rng = new Rng(options.seed ?? 1);
  const world = options.world ?? new SimWorld(clock, rng.stream("world"));
  const host = world.addNode(options.nodeName ?? "node-1", options);
  const logger = new RecordingLogger();
  const rootDir = defaultKubeletRootDir;
  await host.mkdir(rootDir, 0o750, { recursive: true });
  const recorded = recordCommands(host);
  const mounter = new Mounter(recorded.host, { logger, safeNotMountedProbeParentDir: rootDir });
  const node: NodeVolumeContext = {
    host: recorded.host,
    nodeName: host.nodeName,
    rootDir,
    mounter,
    ...(options.allocatable === undefined ? {} : { allocatable: options.allocatable }),
  };
  const api = new InMemoryVolumeApi();
  const volumeHost: VolumeHost = { clock, rng: rng.stream(`volume/${host.nodeName}`), logger, api, node };
  return { clock, world, host, commands: recorded.commands, mounter, logger, api, node, volumeHost, rootDir };
}

/** A VolumeHost for the attach/detach controller's side: same world, no node. */
export function controllerVolumeHost(clock: Clock, seed = 1): VolumeHost {
  return {
    clock,
    rng: new Rng(seed).stream("controller"),
    logger: new RecordingLogger(),
    api: new InMemoryVolumeApi(),
  };
}

/**
 * Runs the virtual clock until `promise` settles and returns its outcome; virtual time only moves
 * when every task due now has run, so timers inside the operation fire in order.
 */
export async function settle<T>(clock: VirtualClock, promise: Promise<T>, maxVirtualMs = 3_600_000): Promise<T> {
  let done = false;
  const tracked = promise.finally(() => {
    done = true;
  });
  // Avoid an unhandled rejection while the clock runs; the caller still sees it from `tracked`.
  tracked.catch(() => undefined);
  const deadline = clock.now() + maxVirtualMs;
  // One due instant at a time, checking in between, so time never jumps past the moment `promise`
  // settles (a pending timer far ahead, such as another mount's retry deadline, must not fire).
  for (;;) {
    await clock.advanceBy(0);
    if (done) break;
    const next = clock.nextDueTime();
    if (next === undefined || next > deadline) break;
    await clock.advanceTo(next);
  }
  return tracked;
}
