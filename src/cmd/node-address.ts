/**
 * The node's InternalIP when `--node-ip` is not given: the address this machine reaches the API
 * server from (kubelet-endpoint.ts). The server may not be up yet when a node agent starts — the
 * machines of a cluster boot in any order, and a server may be restarting — so the agent keeps
 * trying, with the kubelet's node-registration backoff (100 ms doubling to 7 s), one log line per
 * failed attempt, until the server answers or the agent is stopped. Giving up would leave a node
 * that never registers.
 */
import { nodeRegistrationRetryInitialMs, nodeRegistrationRetryMaxMs } from "../kubelet/constants.ts";
import { retryUntilStopped } from "../kubelet/retry-until-stopped.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { addressTowards } from "./kubelet-endpoint.ts";

interface NodeAddressOptions {
  /** `--server`'s comma-separated list. */
  serverUrls: string;
  clock: Clock;
  logger: Logger;
  /** False once the agent is told to stop. */
  keepTrying: () => boolean;
  /** How one attempt finds the address; the TCP connection of kubelet-endpoint.ts unless a test says. */
  reach?: (serverUrls: string) => Promise<string>;
}

/** The address, once a server answers; undefined when the agent was stopped first. */
export function nodeAddressWhenServerReachable(options: NodeAddressOptions): Promise<string | undefined> {
  const { serverUrls, clock, logger, keepTrying, reach = addressTowards } = options;
  return retryUntilStopped(
    {
      clock,
      initialMs: nodeRegistrationRetryInitialMs,
      maxMs: nodeRegistrationRetryMaxMs,
      keepTrying,
      onFailure: (error, retryInMs) =>
        logger.error("Unable to reach the API server to choose the node's address; will retry", {
          error,
          retryInMs,
        }),
    },
    () => reach(serverUrls),
  );
}
