/**
 * What the long-running commands (`kvol up`, `kvol server`, `kvol node`) need of the process:
 * output streams and a way to hear Ctrl-C or SIGTERM. Tests pass their own.
 */

export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Resolves with the signal's name when the process is asked to stop. */
  stopRequested: () => Promise<string>;
}

export const processIo: CommandIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stopRequested: () =>
    new Promise((resolve) => {
      const onSignal = (signal: NodeJS.Signals): void => {
        // A second Ctrl-C while shutting down means "now": leave without waiting.
        process.once(signal, () => process.exit(130));
        resolve(signal);
      };
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
    }),
};

/** Exit statuses shared by every kvol command. */
export const exitOk = 0;
export const exitFailure = 1;
export const exitUsage = 2;
