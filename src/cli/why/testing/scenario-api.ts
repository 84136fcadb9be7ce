/**
 * `kvol why` on a simulated incident: plays a built-in scenario up to a chosen run time, then
 * serves that cluster through the API server (the same one `kvol up` runs, with the cluster's
 * kubelets and controllers behind its debug endpoints) and hands the test a client of it.
 */
import { join } from "node:path";
import type { Authenticator } from "../../../apiserver/auth/token-authenticator.ts";
import { startApiServer } from "../../../apiserver/server.ts";
import { testTls } from "../../../apiserver/testing/test-tls.ts";
import type { Cluster } from "../../../cmd/cluster.ts";
import { RealClock } from "../../../runtime/real-clock.ts";
import { runScenario } from "../../../sim/runner/run-scenario.ts";
import { loadScenarioFile, parseScenario } from "../../../sim/scenario/load.ts";
import type { Scenario } from "../../../sim/scenario/model.ts";
import { fetchTrusting } from "../../../testing/fetch-trusting.ts";
import { KubeApi } from "../../client/kube-api.ts";

export type FetchFunction = ReturnType<typeof fetchTrusting>;

import { clusterControllerStates } from "../../embedded/cluster-controller-states.ts";
import { clusterKubelets } from "../../embedded/cluster-kubelets.ts";

const scenariosDir = join(import.meta.dirname, "../../../../scenarios");

/** The path of a built-in scenario file. */
export function scenarioPath(file: string): string {
  return join(scenariosDir, file);
}

/**
 * Serves `cluster` on a free port while `body` runs: over HTTP, or with `authenticator` over HTTPS
 * (requests need a token, which travels over TLS only; `fetch` trusts the server's CA).
 */
export async function withClusterApi<T>(
  cluster: Cluster,
  body: (api: KubeApi, url: string, fetch: FetchFunction) => Promise<T>,
  authenticator?: Authenticator,
): Promise<T> {
  const trust = authenticator === undefined ? undefined : testTls(new RealClock().now());
  const server = await startApiServer({
    ...(authenticator === undefined ? {} : { authenticator }),
    ...(trust === undefined ? {} : { tls: trust.tls }),
    store: cluster.store,
    clock: cluster.clock,
    logger: cluster.logger.with({ component: "kube-apiserver" }),
    port: 0,
    kubelets: clusterKubelets(cluster),
    controllerStates: clusterControllerStates(cluster),
  });
  try {
    const url = server.secureUrl ?? server.url;
    const caPem = trust?.caPem;
    const api = new KubeApi({ server: url, ...(caPem === undefined ? {} : { caPem }) });
    return await body(api, url, caPem === undefined ? fetch : fetchTrusting(caPem));
  } finally {
    await server.close();
  }
}

/** Plays `scenarios/<file>` until `untilMs` of run time, then runs `body` against the cluster as it is then. */
export async function atScenarioTime<T>(
  file: string,
  untilMs: number,
  body: (api: KubeApi, cluster: Cluster) => Promise<T>,
): Promise<T> {
  return atTime(loadScenarioFile(scenarioPath(file)), file, untilMs, body);
}

/** As `atScenarioTime`, for a scenario written in the test (`name` names it in errors). */
export async function atScenarioTextTime<T>(
  name: string,
  text: string,
  untilMs: number,
  body: (api: KubeApi, cluster: Cluster) => Promise<T>,
): Promise<T> {
  return atTime(parseScenario(text, { file: scenarioPath(name) }), name, untilMs, body);
}

async function atTime<T>(
  scenario: Scenario,
  file: string,
  untilMs: number,
  body: (api: KubeApi, cluster: Cluster) => Promise<T>,
): Promise<T> {
  let answer: { value: T } | undefined;
  await runScenario(scenario, {
    untilMs,
    atEnd: async (cluster) => {
      answer = { value: await withClusterApi(cluster, (api) => body(api, cluster)) };
    },
  });
  if (answer === undefined) throw new Error(`scenario ${file} ended before ${untilMs} ms without reaching its end`);
  return answer.value;
}

/** GET `path` from the scenario's API server with a bearer token: the status and the body's text. */
export async function getWithToken(
  fetch: FetchFunction,
  url: string,
  path: string,
  token: string,
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: response.status, text: await response.text() };
}
