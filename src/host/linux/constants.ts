/** Numbers and paths of the real-Linux Host, in one place, each with its unit in its name. */

/** The kernel's view of this process's mounts. */
export const procSelfMountInfoPath = "/proc/self/mountinfo";
/** The name of PID 1; `systemd` there means transient scopes are available. */
export const procInitCommPath = "/proc/1/comm";
export const systemdInitName = "systemd";

/** A command killed by a signal reports 128 + the signal number, as a shell reports it. */
export const signalExitStatusBase = 128;
/** The PATH used when the environment has none: where a node keeps mount helpers and tools. */
export const defaultCommandSearchPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** The filesystem type of the cgroup v2 hierarchy in mountinfo. */
export const cgroup2FsType = "cgroup2";
/** Prefix of the cgroup directories created for daemons of scope "own": `kvol-daemon-<agent pid>-<n>`. */
export const daemonCgroupPrefix = "kvol-daemon-";
/** The shell used to move a daemon into its cgroup before it runs a single instruction of its own. */
export const posixShellPath = "/bin/sh";

/**
 * After a SIGKILL of a process that is not our child, /proc is read at most this many times waiting
 * for it to be gone (each read is an asynchronous round-trip of some microseconds, so about a second).
 */
export const killedProcessWatchReadsMax = 50_000;
