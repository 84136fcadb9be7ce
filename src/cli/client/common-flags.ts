/**
 * The flags every client command shares (`--kubeconfig`, `--context`, `-n`), parsed with
 * node:util's parseArgs, and the step from them to a connected KubeApi.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { errorMessage } from "../../runtime/error-message.ts";
import type { ClientIo } from "./client-io.ts";
import { KubeApi } from "./kube-api.ts";
import { type ClusterAccess, loadClusterAccess } from "./kubeconfig.ts";
import { UsageError } from "./resource-args.ts";

type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

export const connectionOptions = {
  kubeconfig: { type: "string" },
  context: { type: "string" },
  namespace: { type: "string", short: "n" },
  help: { type: "boolean", short: "h" },
} as const satisfies OptionSpec;

export const connectionUsage = `  --kubeconfig PATH   the kubeconfig to use (default: $KUBECONFIG, else ~/.kube/config, else the one
                      \`kvol up\` wrote in ~/.kvol or $KVOL_DATA_DIR)
  --context NAME      the kubeconfig context to use (default: its current context)
  -n, --namespace NS  the namespace (default: the context's, else "default")`;

/** parseArgs, with its errors turned into a UsageError. */
export function parseCommandArgs<T extends OptionSpec>(argv: readonly string[], options: T) {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}

export interface Connection {
  api: KubeApi;
  access: ClusterAccess;
  /** The namespace of `-n`, else the context's. */
  namespace: string;
}

export function connect(
  values: { kubeconfig?: string | undefined; context?: string | undefined; namespace?: string | undefined },
  io: ClientIo,
): Connection {
  const access = loadClusterAccess({
    env: io.env,
    ...(values.kubeconfig === undefined ? {} : { kubeconfig: values.kubeconfig }),
    ...(values.context === undefined ? {} : { context: values.context }),
  });
  return { api: new KubeApi(access), access, namespace: values.namespace ?? access.namespace };
}
