/**
 * The kubelet server of a node agent (`kvol node`, simulated or real): HTTPS with a self-signed
 * certificate on every interface, at `--kubelet-port` (0, the default, picks a free port), and the
 * address the node reports as its InternalIP — `--node-ip`, or the address this machine uses to
 * reach the API server, so the API server can reach the kubelet back.
 */
import { connect } from "node:net";
import { selfSignedCertificate } from "../apiserver/tls/self-signed-certificate.ts";
import { KubeletServer } from "../kubelet/server/kubelet-server.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";

/** Kubernetes' `--address` default: the kubelet listens on every interface. */
export const kubeletListenHost = "0.0.0.0";

export interface KubeletEndpointOptions {
  nodeName: string;
  /** The node's bearer token: the one credential the kubelet accepts (the API server presents it). */
  token: string;
  /** 0 picks a free port. */
  port: number;
  clock: Clock;
  logger: Logger;
}

/** Starts the kubelet's server (answering 503 until `serve`); resolves once it listens. */
export async function startKubeletServer(options: KubeletEndpointOptions, address: string): Promise<KubeletServer> {
  const tls = selfSignedCertificate({
    commonName: `${options.nodeName}@kubelet`,
    hosts: [...new Set([options.nodeName, "localhost", "127.0.0.1", address])],
    nowMs: options.clock.now(),
  });
  const server = new KubeletServer({ token: options.token, tls, logger: options.logger });
  await server.listen(options.port, kubeletListenHost);
  return server;
}

/**
 * The local address of a connection to the API server: the address it can reach this machine at.
 * `serverUrls` is `--server`'s comma-separated list: the first server that answers tells.
 */
export async function addressTowards(serverUrls: string): Promise<string> {
  const urls = serverUrls.split(",");
  for (const [index, url] of urls.entries()) {
    try {
      return await addressTowardsOne(url);
    } catch (error) {
      if (index === urls.length - 1) throw error;
    }
  }
  throw new Error("--server names no API server");
}

function addressTowardsOne(serverUrl: string): Promise<string> {
  const url = new URL(serverUrl);
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port }, () => {
      const local = socket.localAddress ?? "127.0.0.1";
      socket.end();
      resolve(local.replace(/^::ffff:/, ""));
    });
    socket.on("error", (error) => reject(new Error(`cannot reach the API server at ${serverUrl}: ${error.message}`)));
  });
}
