/**
 * What a node's kubelet server serves, from the kubelet's own state: pods from its pod manager,
 * logs from the container log files, commands run in containers — streamed by the container
 * runtime where it can (a real node: the command runs inside the container's namespaces and
 * root), or, on a simulated node, the simulated command (`ls`, `cat`, `test`, … against the
 * volumes behind the container's mounts, as exec probes run there). `attach` streams what the
 * container prints from now on until it exits.
 */
import { readFile } from "node:fs/promises";
import type { Pod } from "kubernetes-types/core/v1.js";
import type { Host } from "../../host/host.ts";
import type { Clock } from "../../runtime/clock.ts";
import { type LogReadableRuntime, readContainerLog } from "../container/container-log-reader.ts";
import type { KubeletContainerRuntime } from "../container/container-runtime.ts";
import type { ContainerInstance } from "../container/sim-container-runtime.ts";
import { SimContainerRuntime } from "../container/sim-container-runtime.ts";
import { ProbeCommandRunner } from "../prober/probe-command.ts";
import { containerLogFollowPollMs } from "./container-logs.ts";
import { type KubeletStreaming, StreamRefused } from "./kubelet-server.ts";
import type { RemoteCommandResult, RemoteCommandStreams } from "./remote-command.ts";

interface NodeStreamingOptions {
  clock: Clock;
  /** The node, for simulated commands. */
  host: Host;
  podManager: { getPods(): readonly Pod[] };
  runtime: KubeletContainerRuntime;
}

/** A real runtime's log files are on this machine's file system. */
async function readLogFile(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw error;
  }
}

function logReadable(runtime: KubeletContainerRuntime): LogReadableRuntime {
  if (runtime instanceof SimContainerRuntime) return runtime;
  return {
    current: (uid, name) => runtime.current(uid, name),
    previous: (uid, name) => runtime.previous(uid, name),
    logs: { flushed: async () => undefined, read: readLogFile },
  };
}

export function nodeStreaming(options: NodeStreamingOptions): KubeletStreaming {
  const { clock, runtime } = options;
  const running = (pod: Pod, container: string): ContainerInstance => {
    const instance = runtime.current(pod.metadata?.uid ?? "", container);
    if (instance === undefined || instance.state !== "running") {
      throw new StreamRefused(500, `container not found ("${container}")`);
    }
    return instance;
  };
  return {
    clock,
    pod: (namespace, name) =>
      options.podManager.getPods().find((pod) => pod.metadata?.namespace === namespace && pod.metadata?.name === name),
    containerLog: (pod, container, previous) => readContainerLog(logReadable(runtime), pod, container, previous),
    checkRunning: (pod, container) => {
      running(pod, container);
    },
    exec: (pod, container, command, streams) => {
      const instance = running(pod, container);
      if (runtime.execStream !== undefined) return execStreamed(runtime, instance, command, streams);
      return execSimulated(options.host, instance, command, streams);
    },
    attach: (pod, container, streams) =>
      attachToOutput(clock, logReadable(runtime), pod, running(pod, container), streams),
  };
}

async function execStreamed(
  runtime: KubeletContainerRuntime,
  instance: ContainerInstance,
  command: readonly string[],
  streams: RemoteCommandStreams,
): Promise<RemoteCommandResult> {
  const execStream = runtime.execStream;
  if (execStream === undefined) return { error: "the container runtime cannot stream a command" };
  const session = await execStream.call(runtime, instance, {
    cmd: command,
    stdin: streams.stdin !== undefined,
    tty: streams.tty,
  });
  const kill = () => session.kill();
  streams.signal.addEventListener("abort", kill);
  if (streams.stdin !== undefined && session.stdin !== undefined) {
    const input = session.stdin;
    input.on("error", () => undefined);
    streams.stdin.on("data", (chunk: Buffer) => input.write(chunk));
    streams.stdin.on("end", () => input.end());
  }
  session.stdout.on("data", (chunk: Buffer) => streams.stdout?.write(chunk));
  // On a terminal the two are one stream; without a stderr channel, stderr is dropped as the kubelet does.
  session.stderr.on("data", (chunk: Buffer) => (streams.tty ? streams.stdout : streams.stderr)?.write(chunk));
  try {
    return { exitCode: await session.exited };
  } finally {
    streams.signal.removeEventListener("abort", kill);
  }
}

async function execSimulated(
  host: Host,
  instance: ContainerInstance,
  command: readonly string[],
  streams: RemoteCommandStreams,
): Promise<RemoteCommandResult> {
  const result = await new ProbeCommandRunner(host, instance.mounts).run(command);
  streams.stdout?.write(Buffer.from(result.output, "utf8"));
  return { exitCode: result.exitCode };
}

/** Sends the lines the container prints from now on, each on its stream, until it exits or the client leaves. */
async function attachToOutput(
  clock: Clock,
  runtime: LogReadableRuntime,
  pod: Pod,
  instance: ContainerInstance,
  streams: RemoteCommandStreams,
): Promise<RemoteCommandResult> {
  let seen = (await readContainerLog(runtime, pod, instance.name, false)).entries.length;
  while (!streams.signal.aborted && instance.state === "running") {
    await clock.sleep(containerLogFollowPollMs);
    const log = await readContainerLog(runtime, pod, instance.name, false);
    for (const entry of log.entries.slice(seen)) {
      const stream = entry.stream === "stderr" && !streams.tty ? streams.stderr : streams.stdout;
      stream?.write(Buffer.from(`${entry.text}\n`, "utf8"));
    }
    seen = log.entries.length;
  }
  return { exitCode: 0 };
}
