/**
 * The fsync that makes the SQLite store's commits durable, done on libuv's thread pool instead of
 * inside the commit: SQLite writes a commit's frames to the WAL file without syncing
 * (`synchronous=NORMAL`, sqlite-schema.ts), and the backend acknowledges the commit's writes only
 * once an fsync of the WAL that started after the commit has returned. A commit is then as durable
 * when acknowledged as with `synchronous=FULL`, but the event loop keeps serving requests (parsing,
 * validating, answering) while the disk works, and every commit made during one fsync shares the
 * next.
 *
 * One fsync runs at a time; the callers that ask during it wait for the next, which starts as soon
 * as it returns. A failed fsync fails every later one too: after a failed fsync the kernel may have
 * dropped the unwritten pages, so nothing written since can be trusted to be on disk.
 */
import { closeSync, existsSync, fsync, fsyncSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { errorMessage } from "../../runtime/error-message.ts";

/** Syncs the file or directory at `path` to disk now, throwing if it cannot. */
export type SyncPath = (path: string) => void;

/** The real `SyncPath`: an fsync of the file or directory. */
export function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Before a store file is read at open: syncs its WAL (if any), the file itself (if any) and their
 * directory. A process killed after a commit but before its fsync leaves that commit in the OS's
 * page cache, where the reopened store would read it, serve it and build on it; a power cut after
 * that would lose it. Synced first, whatever the file holds is on disk before anyone sees it.
 */
export function syncStoreFiles(databasePath: string, syncPath: SyncPath = fsyncPath): void {
  for (const path of [`${databasePath}-wal`, databasePath]) {
    if (existsSync(path)) syncPath(path);
  }
  syncPath(dirname(databasePath));
}

/** Syncs the open file `fd` to disk on another thread, then calls `done` (`fs.fsync`'s shape). */
export type SyncFd = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => void;

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

export class WalSync {
  private readonly walPath: string;
  private readonly syncFd: SyncFd;
  private fd: number | undefined;
  private running = false;
  private waiting: Waiter[] = [];
  private failure: Error | undefined;
  private idleWaiters: (() => void)[] = [];

  /** `databasePath`: the store file; its WAL is the file beside it named `<file>-wal`. */
  constructor(databasePath: string, syncFd: SyncFd = fsync) {
    this.walPath = `${databasePath}-wal`;
    this.syncFd = syncFd;
  }

  /** Resolves once everything written to the WAL before the call is on disk; rejects if that cannot be known. */
  sync(): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (!this.running) this.start();
    });
  }

  /** Whether an fsync is running or asked for. */
  pending(): boolean {
    return this.running || this.waiting.length > 0;
  }

  /** Resolves once no fsync is running or asked for (before closing the file). */
  idle(): Promise<void> {
    if (!this.pending()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Closes the WAL file's descriptor; call after `idle()`. */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private start(): void {
    const batch = this.waiting;
    this.waiting = [];
    let fd: number;
    try {
      fd = this.walFd();
    } catch (error) {
      this.finish(batch, this.fail(error));
      return;
    }
    this.running = true;
    this.syncFd(fd, (error) => {
      this.running = false;
      this.finish(batch, error === null ? undefined : this.fail(error));
    });
  }

  private finish(batch: readonly Waiter[], failure: Error | undefined): void {
    for (const waiter of batch) {
      if (failure === undefined) waiter.resolve();
      else waiter.reject(failure);
    }
    if (this.waiting.length > 0) {
      if (this.failure === undefined) this.start();
      else this.finish(this.waiting.splice(0), this.failure);
      return;
    }
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private fail(error: unknown): Error {
    this.failure ??= new Error(
      `cannot sync ${this.walPath} to disk: ${errorMessage(error)}; the write may or may not have been stored`,
      { cause: error },
    );
    return this.failure;
  }

  /**
   * The WAL stays the same file while the database is open (a checkpoint rewinds it in place), so
   * it is opened once, at the first sync, when the first commit has created it. Its directory is
   * synced then too: a new file's name is durable only once its directory is.
   */
  private walFd(): number {
    if (this.fd !== undefined) return this.fd;
    // Synchronous, once per open store: the WAL's first commit waits for it anyway.
    fsyncPath(dirname(this.walPath));
    this.fd = openSync(this.walPath, "r");
    return this.fd;
  }
}
