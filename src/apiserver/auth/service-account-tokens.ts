/**
 * Tokens for service accounts (the TokenRequest API behind `kubectl create token`): the server
 * issues an unguessable bearer token that authenticates as
 * `system:serviceaccount:<namespace>:<name>` (groups `system:serviceaccounts` and
 * `system:serviceaccounts:<namespace>`) until it expires. Tokens live in the server's memory: a
 * restart forgets them, as short-lived tokens are meant to be asked for again. Other tokens go to
 * the authenticator this one wraps.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "../../runtime/clock.ts";
import { msPerSecond } from "../../runtime/duration.ts";
import { bearerTokenOf, unauthorized } from "./bearer-token.ts";
import type { Authenticator } from "./token-authenticator.ts";
import type { UserInfo } from "./user-info.ts";

/** Kubernetes' default and minimum token lifetimes. */
export const defaultTokenExpirationSeconds = 3600;
export const minTokenExpirationSeconds = 600;
/** The audience a token is for when the request names none (the API server itself). */
export const defaultTokenAudience = "https://kubernetes.default.svc.cluster.local";
const tokenPrefix = "kvol-sa.";
const tokenRandomBytes = 32;
/** A bound on the tokens kept; the ones closest to expiry are dropped first beyond it. */
const maxIssuedTokens = 10_000;

interface Issued {
  user: UserInfo;
  expiresAtMs: number;
}

export class ServiceAccountTokens implements Authenticator {
  private readonly clock: Clock;
  private readonly inner: Authenticator | undefined;
  private readonly issued = new Map<string, Issued>();

  constructor(clock: Clock, inner?: Authenticator) {
    this.clock = clock;
    this.inner = inner;
  }

  /** A new token for the account, valid `expirationSeconds` from now; returns it and its expiry. */
  issue(
    namespace: string,
    name: string,
    uid: string,
    expirationSeconds: number,
  ): { token: string; expiresAtMs: number } {
    this.dropExpired();
    if (this.issued.size >= maxIssuedTokens) {
      const soonest = [...this.issued].sort(([, a], [, b]) => a.expiresAtMs - b.expiresAtMs)[0];
      if (soonest !== undefined) this.issued.delete(soonest[0]);
    }
    const token = `${tokenPrefix}${randomBytes(tokenRandomBytes).toString("base64url")}`;
    const expiresAtMs = this.clock.now() + expirationSeconds * msPerSecond;
    const user: UserInfo = {
      name: `system:serviceaccount:${namespace}:${name}`,
      uid,
      groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`],
    };
    this.issued.set(token, { user, expiresAtMs });
    return { token, expiresAtMs };
  }

  authenticate(authorization: string | undefined): UserInfo {
    const token = bearerTokenOf(authorization);
    const issued = token === undefined ? undefined : this.issued.get(token);
    if (issued !== undefined) {
      if (issued.expiresAtMs > this.clock.now()) return issued.user;
      this.issued.delete(token ?? "");
      throw unauthorized();
    }
    if (this.inner === undefined) throw unauthorized();
    return this.inner.authenticate(authorization);
  }

  private dropExpired(): void {
    const nowMs = this.clock.now();
    for (const [token, issued] of this.issued) if (issued.expiresAtMs <= nowMs) this.issued.delete(token);
  }
}
