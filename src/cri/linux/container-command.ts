/**
 * What a container runs, as Kubernetes combines the pod's command/args with the image's
 * ENTRYPOINT/CMD: no command and no args → entrypoint + cmd; a command → it alone, with the args;
 * args only → the image's entrypoint with the args. And the environment: the image's, then the
 * container's, a later value of a name replacing an earlier one.
 */
import type { ImageConfig } from "../images/image-store.ts";
import type { KeyValue } from "../runtime-service.ts";

export function containerArgv(image: ImageConfig, command: readonly string[], args: readonly string[]): string[] {
  if (command.length > 0) return [...command, ...args];
  if (args.length > 0) return [...image.entrypoint, ...args];
  return [...image.entrypoint, ...image.cmd];
}

export function containerEnv(image: ImageConfig, envs: readonly KeyValue[], hostname: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of image.env) {
    const equals = entry.indexOf("=");
    if (equals > 0) env[entry.slice(0, equals)] = entry.slice(equals + 1);
  }
  env.HOSTNAME = hostname;
  for (const { key, value } of envs) env[key] = value;
  return env;
}
