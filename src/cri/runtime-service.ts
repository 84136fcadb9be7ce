/**
 * The container runtime seen from the kubelet, shaped like CRI's RuntimeService
 * (k8s.io/cri-api, runtime/v1): a pod sandbox holds a pod's containers; a container is created from
 * an image with its mounts and devices, started, stopped, removed, inspected, and commands run in
 * it. Names follow CRI's so that a gRPC client for containerd can implement the same interface.
 * Implementations: `linux/linux-runtime-service.ts` (processes in their own namespaces and cgroup).
 */

/** CRI's MountPropagation: None = private, HostToContainer = rslave, Bidirectional = rshared. */
export type MountPropagation = "PROPAGATION_PRIVATE" | "PROPAGATION_HOST_TO_CONTAINER" | "PROPAGATION_BIDIRECTIONAL";

export interface Mount {
  /** Absolute path inside the container. */
  containerPath: string;
  /** Absolute path on the node: a directory or a file. */
  hostPath: string;
  readonly: boolean;
  propagation: MountPropagation;
}

export interface Device {
  /** Where the device node appears inside the container. */
  containerPath: string;
  /** The block or character device on the node. */
  hostPath: string;
}

interface PodSandboxMetadata {
  name: string;
  namespace: string;
  uid: string;
  attempt: number;
}

export interface PodSandboxConfig {
  metadata: PodSandboxMetadata;
  /** The containers' hostname (the pod's name unless spec.hostname says otherwise). */
  hostname: string;
  /** Where this pod's container logs go: `/var/log/pods/<namespace>_<name>_<uid>`. */
  logDirectory: string;
}

/** A sandbox as ListPodSandbox reports it. */
export interface PodSandboxStatus {
  id: string;
  metadata: PodSandboxMetadata;
  hostname: string;
  logDirectory: string;
  createdAtMs: number;
}

export interface KeyValue {
  key: string;
  value: string;
}

export interface ContainerConfig {
  metadata: { name: string; attempt: number };
  image: string;
  /** The entrypoint: the image's when empty. */
  command: string[];
  /** Arguments: the image's command when both `command` and `args` are empty. */
  args: string[];
  workingDir: string;
  envs: KeyValue[];
  mounts: Mount[];
  devices: Device[];
  /** Relative to the sandbox's logDirectory: `<container>/<attempt>.log`. */
  logPath: string;
}

type ContainerState = "CONTAINER_CREATED" | "CONTAINER_RUNNING" | "CONTAINER_EXITED" | "CONTAINER_UNKNOWN";

export interface ContainerStatus {
  id: string;
  podSandboxId: string;
  name: string;
  attempt: number;
  state: ContainerState;
  image: string;
  /** Epoch milliseconds; 0 when not yet reached. */
  createdAtMs: number;
  startedAtMs: number;
  finishedAtMs: number;
  exitCode: number;
  /** `Completed`, `Error`, `OOMKilled` or empty. */
  reason: string;
  message: string;
  /** Absolute path of the log file. */
  logPath: string;
  /** The container's mounts, as created (CRI's ContainerStatus.mounts). */
  mounts?: Mount[];
}

export interface ExecSyncResponse {
  stdout: Buffer;
  stderr: Buffer;
  exitCode: number;
}

/** A command to run in a container with its streams attached (CRI's Exec, streamed). */
export interface ExecRequest {
  cmd: readonly string[];
  /** Keep the command's stdin open for the caller to write. */
  stdin: boolean;
  /** Run it on a terminal (stdout and stderr then are one stream). */
  tty: boolean;
}

/** A command running in a container, its streams open. */
export interface ExecSession {
  stdin?: NodeJS.WritableStream;
  stdout: NodeJS.ReadableStream;
  stderr: NodeJS.ReadableStream;
  /** The exit code once the command and its streams have ended. */
  exited: Promise<number>;
  /** Kills the command (the client went away). */
  kill(): void;
}

/** Hears about containers that exited (CRI's container events, CONTAINER_STOPPED_EVENT). */
export type ContainerExitHandler = (status: ContainerStatus) => void;

export interface RuntimeService {
  /** Creates and starts a pod sandbox; returns its id. */
  runPodSandbox(config: PodSandboxConfig): Promise<string>;
  /** Stops every container of the sandbox (SIGKILL once the grace period is over). */
  stopPodSandbox(podSandboxId: string): Promise<void>;
  /** Removes the sandbox and its containers (stopping them first). */
  removePodSandbox(podSandboxId: string): Promise<void>;
  /** Every sandbox the runtime has, including those created before the agent (re)started. */
  listPodSandbox(): Promise<PodSandboxStatus[]>;
  createContainer(podSandboxId: string, config: ContainerConfig): Promise<string>;
  startContainer(containerId: string): Promise<void>;
  /** SIGTERM to the container's main process, SIGKILL to all of it after `timeoutMs`. */
  stopContainer(containerId: string, timeoutMs: number): Promise<void>;
  removeContainer(containerId: string): Promise<void>;
  containerStatus(containerId: string): Promise<ContainerStatus>;
  /** The containers of a sandbox, or all of them. */
  listContainers(podSandboxId?: string): Promise<ContainerStatus[]>;
  /** Runs `cmd` inside the container and waits for it, at most `timeoutMs` (0: no limit). */
  execSync(containerId: string, cmd: readonly string[], timeoutMs: number): Promise<ExecSyncResponse>;
  /** Starts `request.cmd` inside the container with its streams open (absent: only ExecSync). */
  exec?(containerId: string, request: ExecRequest): Promise<ExecSession>;
  /** Subscribes to container exits; returns the unsubscribe function. */
  onContainerExit(handler: ContainerExitHandler): () => void;
}

/** A CRI call failed; `code` follows gRPC's status names (NotFound, FailedPrecondition, ...). */
export class RuntimeError extends Error {
  constructor(
    readonly code: "NotFound" | "FailedPrecondition" | "InvalidArgument" | "Unknown" | "DeadlineExceeded",
    message: string,
  ) {
    super(message);
    this.name = "RuntimeError";
  }
}
