import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { RealClock } from "../../runtime/real-clock.ts";
import { cgroupPids, findCgroup2Mount, removeCgroupIfEmpty } from "./cgroup.ts";
import { LinuxHost } from "./linux-host.ts";
import { readMountInfo } from "./mount-info-reader.ts";
import { requireOrSkip } from "./private-mount-namespace.ts";

const clock = new RealClock();
const pollIntervalMs = 50;
/**
 * How long an orphan may take to be gone: a killed process whose parent died is a zombie until
 * PID 1 reaps it, and a minimal init may reap only every few seconds. Its cgroup cannot be removed
 * before that.
 */
const orphanReapDeadlineMs = 30_000;
const agentFixture = join(import.meta.dirname, "daemon-scope-agent.fixture.ts");

function whyDaemonTestsCannotRun(): string | undefined {
  return process.getuid?.() === 0 ? undefined : "daemon scope tests need root (uid 0) to create cgroups";
}

async function waitUntil(what: string, condition: () => Promise<boolean>): Promise<void> {
  for (let waitedMs = 0; waitedMs <= orphanReapDeadlineMs; waitedMs += pollIntervalMs) {
    if (await condition()) return;
    await clock.sleep(pollIntervalMs);
  }
  assert.fail(`${what} did not happen within ${orphanReapDeadlineMs} ms`);
}

function killIgnoringGone(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/** Removes a cgroup once its last process has been reaped. */
async function removeCgroupWhenEmpty(cgroupDir: string): Promise<void> {
  await waitUntil(`removal of ${cgroupDir}`, () => removeCgroupIfEmpty(cgroupDir));
}

async function processGroupOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  // Fields after `(comm)`: state, ppid, pgrp.
  const afterComm = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(afterComm[2]);
}

async function cgroupV2PathOf(pid: number): Promise<string> {
  const lines = (await readFile(`/proc/${pid}/cgroup`, "utf8")).split("\n");
  return lines.find((line) => line.startsWith("0::"))?.slice(3) ?? "";
}

/** Starts the fixture agent in its own process group and, when cgroup v2 is there, its own cgroup. */
async function startAgent(agentCgroup: string | undefined): Promise<{ child: ChildProcess; report: AgentReport }> {
  const node = [process.execPath, "--import", "tsx", agentFixture];
  const [command, ...args] =
    agentCgroup === undefined
      ? node
      : ["/bin/sh", "-c", 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"', "sh", agentCgroup, ...node];
  const child = spawn(command as string, args, { detached: true, stdio: ["pipe", "pipe", "inherit"] });
  const firstLine = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      if (text.includes("\n")) resolve(text.slice(0, text.indexOf("\n")));
    });
    child.once("exit", (code) => reject(new Error(`the agent fixture exited (${code}) before reporting: ${text}`)));
  });
  return { child, report: JSON.parse(firstLine) as AgentReport };
}

interface AgentReport {
  own: number;
  agent: number;
  ownCgroup: string | null;
}

async function killCgroup(cgroupDir: string): Promise<void> {
  for (const pid of await cgroupPids(cgroupDir)) killIgnoringGone(pid);
}

test("an own-scope daemon survives killing its agent's process group and cgroup; an agent-scope one dies", async (t: TestContext) => {
  if (!requireOrSkip(t, whyDaemonTestsCannotRun())) return;
  const host = new LinuxHost({ nodeName: "node-1" });
  const cgroup2Mount = findCgroup2Mount(await readMountInfo());
  const agentCgroup = cgroup2Mount === undefined ? undefined : join(cgroup2Mount, `kvol-test-agent-${process.pid}`);
  if (agentCgroup !== undefined) await mkdir(agentCgroup);
  let agentPid: number | undefined;
  let report: AgentReport | undefined;
  try {
    const agent = await startAgent(agentCgroup);
    agentPid = agent.child.pid as number;
    report = agent.report;
    // The agent's pipes would keep this test file running if the agent outlived a failed assertion.
    agent.child.stdin?.destroy();
    agent.child.stdout?.destroy();
    agent.child.unref();

    assert.equal(
      await processGroupOf(report.agent),
      agentPid,
      "the agent-scope daemon is in the agent's process group",
    );
    assert.notEqual(await processGroupOf(report.own), agentPid, "the own-scope daemon has a process group of its own");
    if (agentCgroup !== undefined) {
      assert.notEqual(report.ownCgroup, null, "a cgroup was made for the own-scope daemon");
      assert.equal(`${cgroup2Mount}${await cgroupV2PathOf(report.own)}`, report.ownCgroup);
      assert.equal(`${cgroup2Mount}${await cgroupV2PathOf(report.agent)}`, agentCgroup);
    }

    // A container restart: everything in the agent's process group and cgroup is SIGKILLed.
    killIgnoringGone(-agentPid);
    if (agentCgroup !== undefined) await killCgroup(agentCgroup);
    const [agentProcess, agentDaemon] = [agentPid, report.agent];
    await waitUntil("the agent's death", async () => !(await host.isProcessAlive(agentProcess)));
    await waitUntil("the agent-scope daemon's death", async () => !(await host.isProcessAlive(agentDaemon)));
    assert.equal(await host.isProcessAlive(report.own), true, "the own-scope daemon outlived its agent");
  } finally {
    if (agentPid !== undefined) killIgnoringGone(-agentPid);
    if (agentCgroup !== undefined) await killCgroup(agentCgroup);
    if (report !== undefined) await host.killProcess(report.own);
    if (report !== undefined) await host.killProcess(report.agent);
    if (agentCgroup !== undefined) await removeCgroupWhenEmpty(agentCgroup);
  }
  const ownCgroup = report?.ownCgroup;
  if (ownCgroup !== null && ownCgroup !== undefined) {
    // The agent is dead, so its daemon's cgroup is an orphan for the sweep to remove.
    await waitUntil("the sweep of the dead agent's daemon cgroup", async () =>
      (await host.sweepOrphanDaemonCgroups()).includes(ownCgroup),
    );
  }
});

test("daemons() lists the live daemons this host started, and their cgroups go when they exit", async (t: TestContext) => {
  if (!requireOrSkip(t, whyDaemonTestsCannotRun())) return;
  const host = new LinuxHost({ nodeName: "node-1" });
  const own = await host.startDaemon({ name: "fuse:pvc-1", command: "sleep", args: ["600"], scope: "own" });
  const agent = await host.startDaemon({ name: "helper", command: "sleep", args: ["600"], scope: "agent" });
  const ownCgroup = host.daemonCgroup(own.pid);
  try {
    assert.deepEqual(
      (await host.daemons()).map((daemon) => [daemon.name, daemon.scope, daemon.command, daemon.args]),
      [
        ["fuse:pvc-1", "own", "sleep", ["600"]],
        ["helper", "agent", "sleep", ["600"]],
      ],
    );
  } finally {
    await host.killProcess(own.pid);
    await host.killProcess(agent.pid);
  }
  assert.deepEqual(await host.daemons(), [], "killProcess returns once the daemon is gone");
  assert.equal(await host.isProcessAlive(own.pid), false);
  if (ownCgroup !== undefined) {
    await assert.rejects(readFile(join(ownCgroup, "cgroup.procs")), /ENOENT/, "the daemon's cgroup is removed");
  }
  // Killing a process that is already gone is not an error.
  await host.killProcess(own.pid);
});

test("a daemon whose binary is missing is refused with ENOENT", async () => {
  const host = new LinuxHost({ nodeName: "node-1" });
  await assert.rejects(
    host.startDaemon({ name: "x", command: "kvol-no-such-daemon", args: [], scope: "own" }),
    /exec kvol-no-such-daemon: no such file or directory/,
  );
});
