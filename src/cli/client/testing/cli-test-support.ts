/**
 * The fixture of the client command tests: an API server on a free port (test-server.ts), a
 * kubeconfig pointing at it in a temporary directory, and a ClientIo that keeps what a command
 * prints so a test can read it.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../../../apiserver/test-server.ts";
import type { Clock } from "../../../runtime/clock.ts";
import type { ClientIo } from "../client-io.ts";

/** A kubeconfig with one context: the server and the token. */
export function kubeconfigYaml(server: string, token: string): string {
  return `apiVersion: v1
kind: Config
current-context: test
clusters: [{ name: test, cluster: { server: "${server}" } }]
users: [{ name: admin, user: { token: ${token} } }]
contexts: [{ name: test, context: { cluster: test, user: admin } }]
`;
}

interface CapturedIo extends ClientIo {
  readonly stdout: string;
  readonly stderr: string;
  /** Ends a running watch, as Ctrl-C does. */
  interrupt(): void;
}

export function capturedIo(env: NodeJS.ProcessEnv, clock: Clock, stdin = ""): CapturedIo {
  let stdout = "";
  let stderr = "";
  const interrupt = new AbortController();
  return {
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
    readStdin: async () => stdin,
    errIsTty: false,
    env,
    clock,
    signal: interrupt.signal,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    interrupt: () => interrupt.abort(),
  };
}

export interface CliTestServer {
  server: TestServer;
  dir: string;
  /** An environment whose KUBECONFIG names the test server. */
  env: NodeJS.ProcessEnv;
  io(stdin?: string): CapturedIo;
  close(): Promise<void>;
}

export async function startCliTestServer(): Promise<CliTestServer> {
  const server = await startTestServer();
  const dir = mkdtempSync(join(tmpdir(), "kvol-cli-"));
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(kubeconfig, kubeconfigYaml(server.server.url, "test-token"));
  const env = { KUBECONFIG: kubeconfig };
  return {
    server,
    dir,
    env,
    io: (stdin = "") => capturedIo(env, server.clock, stdin),
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
