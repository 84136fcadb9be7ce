/**
 * A simulated NFS server: exports, each a filesystem shared by every node that mounts it, whether
 * the server answers (a hard mount waits while it does not), and stale handles (an export recreated
 * behind its clients' backs: mounts made before fail with ESTALE, a fresh mount works).
 */
import { posix } from "node:path";
import { SimFilesystem } from "../filesystem.ts";
import { Signal } from "../sim-wait.ts";

export interface NfsExport {
  readonly path: string;
  readonly fs: SimFilesystem;
  /** Bumped by makeStale: a mount made at an older generation holds stale handles. */
  generation: number;
}

interface NfsExportOptions {
  /** Capacity of the export; writes beyond it fail with ENOSPC. */
  sizeLimitBytes?: number;
}

export class NfsServer {
  private reachableNow = true;
  private readonly exportsByPath = new Map<string, NfsExport>();
  /** Fires whenever reachability changes, waking operations that wait for the server. */
  readonly reachabilityChanged = new Signal();

  constructor(readonly address: string) {}

  /** Adds an export (`/exports/data`) and returns its filesystem, to seed or inspect its files. */
  addExport(path: string, options: NfsExportOptions = {}): SimFilesystem {
    const normalized = normalizeExportPath(path);
    if (this.exportsByPath.has(normalized)) {
      throw new Error(`NFS server ${this.address} already exports ${normalized}`);
    }
    const fs = new SimFilesystem(
      options.sizeLimitBytes === undefined ? {} : { sizeLimitBytes: options.sizeLimitBytes },
    );
    this.exportsByPath.set(normalized, { path: normalized, fs, generation: 0 });
    return fs;
  }

  get reachable(): boolean {
    return this.reachableNow;
  }

  setReachable(reachable: boolean): void {
    if (this.reachableNow === reachable) return;
    this.reachableNow = reachable;
    this.reachabilityChanged.notify();
  }

  /** The export holding `path` (the longest exported prefix) and the path inside it. */
  resolve(path: string): { nfsExport: NfsExport; subPath: string } | undefined {
    let candidate = normalizeExportPath(path);
    // Walks up one directory per pass; a path has finitely many ancestors.
    for (;;) {
      const nfsExport = this.exportsByPath.get(candidate);
      if (nfsExport !== undefined) {
        return { nfsExport, subPath: posix.relative(candidate, normalizeExportPath(path)) };
      }
      if (candidate === "/") return undefined;
      candidate = posix.dirname(candidate);
    }
  }

  /** Recreates the export under its clients: every existing mount of it now gets ESTALE. */
  makeStale(path: string): void {
    const found = this.resolve(path);
    if (found === undefined) throw new Error(`NFS server ${this.address} does not export ${path}`);
    found.nfsExport.generation++;
  }

  exportPaths(): string[] {
    return [...this.exportsByPath.keys()];
  }
}

function normalizeExportPath(path: string): string {
  if (!path.startsWith("/")) throw new Error(`NFS export path must be absolute, got ${JSON.stringify(path)}`);
  return posix.normalize(path);
}
