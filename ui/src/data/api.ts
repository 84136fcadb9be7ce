/**
 * The browser's connection to the API server: the bearer token (from the page's `#token=`
 * fragment, kept for the tab in sessionStorage, or typed in), JSON requests, and watch streams
 * read line by line from fetch's body, as kubectl reads them.
 */
const tokenKey = "kvol-token";

export function takeToken(): string | undefined {
  const match = /(?:^#|&)token=([^&]+)/.exec(window.location.hash);
  if (match?.[1] !== undefined) {
    sessionStorage.setItem(tokenKey, decodeURIComponent(match[1]));
    history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  return sessionStorage.getItem(tokenKey) ?? undefined;
}

export function saveToken(token: string): void {
  sessionStorage.setItem(tokenKey, token);
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class Api {
  constructor(private readonly token: string | undefined) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { Accept: "application/json", ...extra, ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}) };
  }

  async json<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
    const response = await fetch(path, {
      method: init.method ?? "GET",
      headers: this.headers(init.body === undefined ? {} : { "Content-Type": "application/json" }),
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    if (!response.ok) throw new ApiFailure(response.status, await failureText(response));
    return (await response.json()) as T;
  }

  /** Calls `onLine` with each JSON line of a watch until it ends or `signal` aborts it. */
  async watch(path: string, onLine: (value: unknown) => void, signal: AbortSignal): Promise<void> {
    const response = await fetch(path, { headers: this.headers(), signal });
    if (!response.ok || response.body === null) throw new ApiFailure(response.status, await failureText(response));
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let pending = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      pending += value;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) if (line.trim() !== "") onLine(JSON.parse(line));
    }
  }
}

async function failureText(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const status = JSON.parse(text) as { message?: string };
    return status.message ?? `${response.status} ${response.statusText}`;
  } catch {
    return text || `${response.status} ${response.statusText}`;
  }
}
