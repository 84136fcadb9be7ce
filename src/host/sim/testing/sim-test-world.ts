/** A world on virtual time with a fixed seed, for tests of the simulated node. */
import { Rng } from "../../../runtime/rng.ts";
import { VirtualClock } from "../../../runtime/virtual-clock.ts";
import { SimWorld, type SimWorldOptions } from "../sim-world.ts";

const testSeed = 42;

export function newTestWorld(options: SimWorldOptions = {}): { world: SimWorld; clock: VirtualClock } {
  const clock = new VirtualClock();
  return { world: new SimWorld(clock, new Rng(testSeed), options), clock };
}
