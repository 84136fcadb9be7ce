/**
 * Bearer-token authentication against a static token file (`token-file.ts`). A token the server
 * does not know makes it look at the file again when the file changed since it was read, so a
 * line added for a new node takes effect without a restart.
 */
import { readFileSync, statSync } from "node:fs";
import { errorMessage } from "../../runtime/error-message.ts";
import { bearerTokenOf, unauthorized } from "./bearer-token.ts";
import { parseTokenFile, type TokenEntry } from "./token-file.ts";
import type { UserInfo } from "./user-info.ts";

export interface Authenticator {
  /** The user the `Authorization` header proves, or a thrown 401 ApiError. */
  authenticate(authorization: string | undefined): UserInfo;
  /** The token of user `name` (a node's, which the API server presents to that node's kubelet). */
  tokenOf?(name: string): string | undefined;
}

/** Users known from a list of entries (tests, and the token file's contents). */
export class StaticTokenAuthenticator implements Authenticator {
  protected users = new Map<string, UserInfo>();

  constructor(entries: readonly TokenEntry[]) {
    this.replace(entries);
  }

  authenticate(authorization: string | undefined): UserInfo {
    const token = bearerTokenOf(authorization);
    if (token === undefined) throw unauthorized();
    const user = this.users.get(token) ?? this.lookUpAgain(token);
    if (user === undefined) throw unauthorized();
    return user;
  }

  tokenOf(name: string): string | undefined {
    const find = () => [...this.users].find(([, user]) => user.name === name)?.[0];
    return find() ?? (this.reload() ? find() : undefined);
  }

  /** Reads the source again if it changed; true when it did. Nothing to reload for a fixed list. */
  protected reload(): boolean {
    return false;
  }

  /** A second chance for an unknown token; nothing to reload for a fixed list. */
  protected lookUpAgain(_token: string): UserInfo | undefined {
    return undefined;
  }

  protected replace(entries: readonly TokenEntry[]): void {
    this.users = new Map(entries.map((entry) => [entry.token, entry.user]));
  }
}

export class TokenFileAuthenticator extends StaticTokenAuthenticator {
  private readonly path: string;
  private loadedModifiedMs: number;
  /** Why the last reload of a changed file failed, for diagnostics; undefined after a good read. */
  lastReloadError: string | undefined;

  /** Reads the file now; a missing or malformed file is an error naming it. */
  constructor(path: string) {
    super([]);
    this.path = path;
    this.loadedModifiedMs = statSync(path).mtimeMs;
    this.replace(parseTokenFile(readFileSync(path, "utf8"), path));
  }

  protected override lookUpAgain(token: string): UserInfo | undefined {
    return this.reload() ? this.users.get(token) : undefined;
  }

  protected override reload(): boolean {
    const modifiedMs = statSync(this.path, { throwIfNoEntry: false })?.mtimeMs;
    if (modifiedMs === undefined || modifiedMs === this.loadedModifiedMs) return false;
    let entries: TokenEntry[];
    try {
      entries = parseTokenFile(readFileSync(this.path, "utf8"), this.path);
    } catch (error) {
      // A half-written or broken file keeps the users read before; the next change is read again.
      this.lastReloadError = errorMessage(error);
      return false;
    }
    this.loadedModifiedMs = modifiedMs;
    this.lastReloadError = undefined;
    this.replace(entries);
    return true;
  }
}
