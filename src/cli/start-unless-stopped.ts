/**
 * `kvol node` starts its agent, which waits for the API server as long as it takes (the machines of
 * a cluster boot in any order). A Ctrl-C or SIGTERM in the meantime must still end it: the agent
 * is stopped, which ends its retry loops, and the start resolves.
 */

/** Thrown by `startUnlessStopped` when a stop signal came before the agent had started. */
export class StoppedBeforeStart extends Error {
  constructor(readonly signal: string) {
    super(`stopped (${signal}) before the node registered`);
  }
}

export async function startUnlessStopped(
  agent: { start(): Promise<void>; stop(): Promise<void> },
  stopRequested: Promise<string>,
): Promise<void> {
  const started = agent.start().then(() => undefined);
  const signal = await Promise.race([started, stopRequested]);
  if (signal === undefined) return;
  await agent.stop();
  await started;
  throw new StoppedBeforeStart(signal);
}
