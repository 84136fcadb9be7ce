/**
 * The numbers and names of `kvol up`, `kvol server` and `kvol node`, each with its unit.
 */

/** Nodes `kvol up` starts when `--nodes` is not given. */
export const defaultNodeCount = 3;
/** The most nodes `kvol up` starts in one process (each runs a kubelet with its loops). */
export const maxNodeCount = 100;
/** Port of the API server when `--port` is not given (kube-apiserver's insecure port of old). */
export const defaultApiPort = 8080;
/** Address the API server listens on when `--address` is not given: this machine only. */
export const defaultListenHost = "127.0.0.1";
/** The data directory when neither `--data-dir` nor KVOL_DATA_DIR is given: `~/.kvol`. */
export const defaultDataDirName = ".kvol";
/** Environment variable that moves the default data directory. */
export const dataDirEnvironmentVariable = "KVOL_DATA_DIR";

// Files in the data directory.
export const storeFileName = "kvol.db";
export const tokenFileName = "tokens.csv";
export const kubeconfigFileName = "kubeconfig";
export const caFileName = "ca.crt";
/** The key of the certificate authority in ca.crt, which signs the API server's serving certificate. */
export const caKeyFileName = "ca.key";
/** The common name of the API server's serving certificate (its CA's is this with `-ca@<epoch seconds>`). */
export const certificateCommonName = "kvol-apiserver";
export const logFileName = "kvol.log";
export const pidFileName = "kvol.pid";
export const clockFileName = "clock";
export const nodeTokenDirName = "node-tokens";

/** Random bytes in each generated bearer token (256 bits). */
export const tokenBytes = 32;

/**
 * The embedded cluster runs on a VirtualClock that follows the wall clock: it is moved to the
 * current time whenever a timer is due, and at least this often, so work queued by API requests
 * (a zero-delay timer) waits at most this long.
 */
export const pacerMaxWaitMs = 10;

/** How often a running cluster writes its clock's time to the data directory (`clock`). */
export const clockSaveIntervalMs = 5_000;

/** How long shutdown waits for the controllers and kubelets to finish their current work. */
export const shutdownTimeoutMs = 10_000;

/** Anything a command waits for longer than this shows progress. */
export const progressAfterMs = 1_000;
