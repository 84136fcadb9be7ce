/**
 * The node's long-running processes: CSI drivers, FUSE daemons, anything started with startDaemon or
 * forked by a mount helper. Each lives in a scope: "agent" (the cgroup of the agent that started it,
 * killed with the agent — a kubelet restart or a plugin container restart) or "own" (a transient
 * systemd scope, which outlives the agent). Killing a process runs its exit hooks, which is how a
 * FUSE mount learns that its daemon is gone.
 */
import type { DaemonScope, DaemonSpec, ProcessInfo } from "../host.ts";

export interface SimProcess {
  readonly info: ProcessInfo;
  alive: boolean;
  readonly exitHooks: Array<() => void>;
}

export class ProcessTable {
  private readonly processes = new Map<number, SimProcess>();

  constructor(private nextPid: number) {}

  start(spec: DaemonSpec): SimProcess {
    const info: ProcessInfo = {
      pid: this.nextPid++,
      name: spec.name,
      command: spec.command,
      args: [...spec.args],
      scope: spec.scope,
      ...(spec.agent === undefined ? {} : { agent: spec.agent }),
    };
    const process: SimProcess = { info, alive: true, exitHooks: [] };
    this.processes.set(info.pid, process);
    return process;
  }

  /** A pid for a process the node runs that the table does not manage (a shell holding a mount). */
  allocatePid(): number {
    return this.nextPid++;
  }

  get(pid: number): SimProcess | undefined {
    return this.processes.get(pid);
  }

  isAlive(pid: number): boolean {
    return this.processes.get(pid)?.alive === true;
  }

  /** SIGKILL: the process ends at once and its exit hooks run. False when it was not running. */
  kill(pid: number): boolean {
    const process = this.processes.get(pid);
    if (process === undefined || !process.alive) return false;
    process.alive = false;
    this.processes.delete(pid);
    for (const hook of process.exitHooks.splice(0)) hook();
    return true;
  }

  /**
   * Kills every live process of one scope — of one agent only, when `agent` is given; returns what
   * it killed, in pid order.
   */
  killScope(scope: DaemonScope, agent?: string): ProcessInfo[] {
    return this.killWhere(
      (process) => process.info.scope === scope && (agent === undefined || process.info.agent === agent),
    );
  }

  /** Kills everything (power loss, reboot). */
  killAll(): ProcessInfo[] {
    return this.killWhere(() => true);
  }

  alive(): ProcessInfo[] {
    return [...this.processes.values()].filter((process) => process.alive).map((process) => ({ ...process.info }));
  }

  private killWhere(matches: (process: SimProcess) => boolean): ProcessInfo[] {
    const victims = [...this.processes.values()].filter((process) => process.alive && matches(process));
    for (const victim of victims) this.kill(victim.info.pid);
    return victims.map((victim) => ({ ...victim.info }));
  }
}
