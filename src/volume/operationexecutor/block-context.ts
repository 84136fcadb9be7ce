/** The node-side context the raw block helpers (`../block/`) need, from an operation's context. */
import type { BlockPathContext } from "../block/volume-path-handler.ts";
import type { OperationContext } from "./operation-context.ts";

export function blockPathContext(context: OperationContext, operation: string): BlockPathContext {
  const node = context.node;
  if (node === undefined) throw new Error(`${operation} runs on a node, but this operation executor has no node`);
  const logger = context.logger;
  return {
    host: node.host,
    mounter: node.mounter,
    logger: { info: (message) => logger.info(message), warning: (message) => logger.warn(message) },
  };
}
