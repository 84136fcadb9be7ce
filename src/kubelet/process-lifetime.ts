/**
 * The life of one kubelet process. When a kubelet is killed its goroutines die wherever they were
 * waiting; nothing they would have done next happens. A Kubelet object that is stopped, though,
 * still has promises in flight (a mount operation awaiting a slow `mount`, a retry loop asleep), and
 * without this they would carry on next to the kubelet started after it: mounting a second time over
 * what the new kubelet mounts, logging, emitting events as a process that no longer exists.
 *
 * So the kubelet sees its node's Host and the Clock through a ProcessLifetime. Once `end()` is called:
 * - a Host call already running still completes on the node (a mount(8) in its own systemd scope
 *   finishes its work), but its result never reaches the dead process: the promise never settles;
 * - a new Host call never starts, and never settles;
 * - sleeps never resolve, timers and loops never fire again.
 * A promise that never settles is collected with everything waiting on it.
 *
 * The process has a name, its agent (`kubelet`): commands and daemons it starts on the Host carry it,
 * so a daemon forked into the process's own scope (a FUSE mount run without systemd-run) is known to
 * be the process's and dies with it — and only those do; another agent's daemons (a CSI node plugin's)
 * and those in a scope of their own live on.
 */
import type {
  CommandResult,
  DaemonSpec,
  FileStat,
  FilesystemSpace,
  Host,
  MountInfo,
  ProcessInfo,
  RunOptions,
} from "../host/host.ts";
import type { Clock, QuietTimerCallback, Timer } from "../runtime/clock.ts";

function never<T>(): Promise<T> {
  return new Promise<T>(() => {
    // Never resolved nor rejected: whatever awaits it died with the process.
  });
}

/** What a dead process gets for a timer: nothing was scheduled, so there is nothing to cancel. */
const noTimer: Timer = {
  cancel: () => {
    // Nothing to cancel.
  },
};

export class ProcessLifetime {
  private alive = true;

  /** `agent`: the name the process's commands and daemons carry on the Host (DaemonSpec.agent). */
  constructor(readonly agent: string) {}

  /** Timers and loops scheduled by the process, cancelled when it ends. */
  private readonly timers = new Set<Timer>();

  get ended(): boolean {
    return !this.alive;
  }

  /** The process is killed: see the file comment for what that stops. */
  end(): void {
    this.alive = false;
    for (const timer of this.timers) timer.cancel();
    this.timers.clear();
  }

  /**
   * What a call's outcome becomes: itself while the process lives, a promise that never settles once
   * it has ended. One pair of functions for every call of the process, where a pair of closures per
   * call (every Host call of the kubelet, every sleep) was garbage at once.
   */
  private readonly passValue = (value: unknown): unknown => (this.alive ? value : never());
  private readonly passError = (error: unknown): Promise<never> => (this.alive ? Promise.reject(error) : never());

  /** `work`'s outcome while the process lives; a promise that never settles once it has ended. */
  guard<T>(work: () => Promise<T>): Promise<T> {
    if (!this.alive) return never();
    return this.settle(work());
  }

  /**
   * The outcome of a call the living process has just started (`guard` without the closure): it
   * reaches the caller one step later, as through `guard`, and never once the process has ended.
   */
  settle<T>(started: Promise<T>): Promise<T> {
    return started.then(this.passValue, this.passError) as Promise<T>;
  }

  host(host: Host): Host {
    return new LifetimeHost(host, this);
  }

  clock(clock: Clock): Clock {
    return new LifetimeClock(clock, this);
  }

  /** Schedules a timer of the process unless it has ended; ending the process cancels it. */
  adopt(schedule: () => Timer): Timer {
    if (!this.alive) return noTimer;
    const timer = schedule();
    this.timers.add(timer);
    return new AdoptedTimer(timer, this.timers);
  }
}

/**
 * A process's timer: cancelling it also forgets it. A class rather than an object literal with an
 * arrow function: a kubelet holds one per pod, and a named closure costs several times this object.
 */
class AdoptedTimer implements Timer {
  constructor(
    private readonly timer: Timer,
    private readonly owner: Set<Timer>,
  ) {}

  cancel(): void {
    this.timer.cancel();
    this.owner.delete(this.timer);
  }
}

class LifetimeClock implements Clock {
  constructor(
    private readonly clock: Clock,
    private readonly lifetime: ProcessLifetime,
  ) {}

  now(): number {
    return this.clock.now();
  }

  sleep(delayMs: number): Promise<void> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.clock.sleep(delayMs));
  }

  setTimer(delayMs: number, fn: () => void): Timer {
    const timer: Timer = this.lifetime.adopt(() =>
      this.clock.setTimer(delayMs, () => {
        timer.cancel(); // fired: nothing left for the end of the process to cancel
        if (!this.lifetime.ended) fn();
      }),
    );
    return timer;
  }

  setQuietTimer(delayMs: number, fn: QuietTimerCallback): Timer {
    const timer: Timer = this.lifetime.adopt(() =>
      this.clock.setQuietTimer(delayMs, () => {
        timer.cancel(); // fired: nothing left for the end of the process to cancel
        return this.lifetime.ended ? false : fn();
      }),
    );
    return timer;
  }

  every(periodMs: number, fn: () => void | Promise<void>): Timer {
    return this.lifetime.adopt(() => this.clock.every(periodMs, () => (this.lifetime.ended ? undefined : fn())));
  }
}

class LifetimeHost implements Host {
  readonly nodeName: string;
  /** Absent when the host underneath cannot name a mount's holders, as the Host interface says. */
  readonly mountHolders: Host["mountHolders"];

  constructor(
    private readonly host: Host,
    private readonly lifetime: ProcessLifetime,
  ) {
    this.nodeName = host.nodeName;
    this.mountHolders = this.holdersOf(host);
  }

  stat(path: string): Promise<FileStat> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.stat(path));
  }

  lstat(path: string): Promise<FileStat> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.lstat(path));
  }

  statfs(path: string): Promise<FilesystemSpace> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.statfs(path));
  }

  mkdir(path: string, mode: number, options?: { recursive?: boolean }): Promise<void> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.mkdir(path, mode, options));
  }

  readdir(path: string): Promise<string[]> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.readdir(path));
  }

  readFile(path: string): Promise<Uint8Array> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.readFile(path));
  }

  writeFile(path: string, data: Uint8Array | string, mode?: number): Promise<void> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.writeFile(path, data, mode));
  }

  rename(from: string, to: string): Promise<void> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.rename(from, to));
  }

  symlink(target: string, path: string): Promise<void> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.symlink(target, path));
  }

  readlink(path: string): Promise<string> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.readlink(path));
  }

  unlink(path: string): Promise<void> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.unlink(path));
  }

  rmdir(path: string): Promise<void> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.rmdir(path));
  }

  chmod(path: string, mode: number): Promise<void> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.chmod(path, mode));
  }

  createSparseFile(path: string, sizeBytes: number): Promise<void> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.createSparseFile(path, sizeBytes));
  }

  copyTree(from: string, to: string): Promise<void> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.copyTree(from, to));
  }

  mountInfo(): Promise<MountInfo[]> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.mountInfo());
  }

  mountIdAt(path: string): Promise<number | undefined> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.mountIdAt(path));
  }

  hasCommand(name: string): Promise<boolean> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.hasCommand(name));
  }

  run(command: string, args: readonly string[], options?: RunOptions): Promise<CommandResult> {
    if (this.lifetime.ended) return never();
    // Options naming their agent already are passed on as they are, not copied.
    const owned = options?.agent === undefined ? { ...options, agent: this.lifetime.agent } : options;
    return this.lifetime.settle(this.host.run(command, args, owned));
  }

  startDaemon(spec: DaemonSpec): Promise<ProcessInfo> {
    const owned = spec.scope === "agent" && spec.agent === undefined ? { ...spec, agent: this.lifetime.agent } : spec;
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.startDaemon(owned));
  }

  isProcessAlive(pid: number): Promise<boolean> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.isProcessAlive(pid));
  }

  killProcess(pid: number): Promise<void> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.killProcess(pid));
  }

  daemons(): Promise<ProcessInfo[]> {
    return this.lifetime.ended ? never() : this.lifetime.settle(this.host.daemons());
  }

  private holdersOf(host: Host): Host["mountHolders"] {
    const find = host.mountHolders?.bind(host);
    if (find === undefined) return undefined;
    return (mountPoint) => this.lifetime.guard(() => find(mountPoint));
  }
}
