/**
 * The few W3C WebDriver (classic) commands the WebKit driver needs, over Node's fetch: a session
 * is a base URL and an id. selenium-webdriver and webdriver (WebdriverIO) speak the same
 * protocol, but their current releases (4.49, 10.x) need Node 22 while this repository supports
 * Node 20.19, and WebdriverIO brings driver downloaders along; what is used here is plain JSON
 * over HTTP (https://www.w3.org/TR/webdriver2/), a dozen commands.
 */

/** The key of a web element reference in WebDriver's JSON. */
export const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';
export type ElementRef = { [ELEMENT_KEY]: string };

export class WebDriverError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Sends one command; `timeoutMs` bounds it (a hung browser must not hang the test). */
export async function webdriverCommand<T>(base: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, timeoutMs = 60_000): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? undefined : { 'content-type': 'application/json; charset=utf-8' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let parsed: { value?: unknown };
  try {
    parsed = JSON.parse(text) as { value?: unknown };
  } catch {
    throw new WebDriverError('unknown error', `WebDriver ${method} ${path}: HTTP ${response.status}, not JSON: ${text.slice(0, 200)}`);
  }
  const value = parsed.value as { error?: string; message?: string } | null | undefined;
  if (!response.ok || (value && typeof value === 'object' && typeof value.error === 'string')) {
    throw new WebDriverError(
      value?.error ?? `HTTP ${response.status}`,
      `WebDriver ${method} ${path}: ${value?.error ?? response.status}: ${value?.message ?? text.slice(0, 200)}`,
    );
  }
  return parsed.value as T;
}

/** One WebDriver session; `command` paths are relative to `/session/{id}`. */
export class WebDriverSession {
  private constructor(
    readonly base: string,
    readonly id: string,
    /** What the driver said it matched (`browserVersion`, …). */
    readonly capabilities: Record<string, unknown>,
  ) {}

  /** A session another process created (test/support/browsers/webkit.ts `serveWebKit`). */
  static attach(base: string, id: string, capabilities: Record<string, unknown>): WebDriverSession {
    return new WebDriverSession(base, id, capabilities);
  }

  static async create(base: string, capabilities: Record<string, unknown>, timeoutMs = 60_000): Promise<WebDriverSession> {
    const answer = await webdriverCommand<{ sessionId: string; capabilities: Record<string, unknown> }>(
      base,
      'POST',
      '/session',
      { capabilities: { alwaysMatch: capabilities } },
      timeoutMs,
    );
    return new WebDriverSession(base, answer.sessionId, answer.capabilities);
  }

  command<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, timeoutMs?: number): Promise<T> {
    return webdriverCommand<T>(this.base, method, `/session/${this.id}${path}`, body, timeoutMs);
  }

  delete(): Promise<unknown> {
    return webdriverCommand(this.base, 'DELETE', `/session/${this.id}`, undefined, 15_000);
  }
}
