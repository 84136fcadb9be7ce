/**
 * A real node for end-to-end tests: `kvol node --host linux` joining a `kvol server` the test
 * started, over HTTPS with the server's CA and the node's own token (DATA/node-tokens/NAME, which
 * `kvol server --node-tokens NAME` writes), its files in the same data directory. Resolves once
 * the node says it runs on this machine.
 */
import { DataDir } from "../embedded/data-dir.ts";
import { KvolProcess, type StartedCluster } from "./kvol-process.ts";

export interface RealNodeOptions {
  /** The server's address and CA file, as `startedCluster` read them. */
  cluster: Pick<StartedCluster, "url" | "caFile">;
  /** The server's data directory (the node's token is there), also the node's `--data-dir`. */
  dataDir: string;
  nodeName: string;
  /** More `kvol node` flags (`--csi-node-plugins none`, say). */
  extraArgs?: readonly string[];
  /** Patience for the start; a loaded machine starts a node slowly. */
  timeoutMs: number;
  /** The test's processes, stopped by its `after`: the node joins them before it is waited for. */
  processes: KvolProcess[];
}

export async function startRealNode(options: RealNodeOptions): Promise<KvolProcess> {
  const { cluster, dataDir, nodeName } = options;
  const node = new KvolProcess([
    ...["node", "--host", "linux", "--server", cluster.url, "--certificate-authority", cluster.caFile],
    ...["--name", nodeName, "--token-file", new DataDir(dataDir).nodeTokenFile(nodeName), "--data-dir", dataDir],
    ...(options.extraArgs ?? []),
  ]);
  options.processes.push(node);
  await node.waitForOutput(new RegExp(`node ${nodeName} is running on this machine`), options.timeoutMs);
  return node;
}
