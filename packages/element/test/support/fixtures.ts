import { afterEach, beforeEach, vi } from 'vitest';
import type { TokenResponse } from '@embedded-dashboard/protocol';
import type { EmbeddedDashboard } from '../../src/embedded-dashboard.js';
import '../../src/index.js';

export const ORIGIN = 'https://dash.example.com';
export const TEMPLATE = `${ORIGIN}/iframe/{dashboard}?env={environment}`;

/** A BroadcastChannel stand-in: delivers to every other open instance of the same name. */
export class FakeBroadcastChannel {
  static open: FakeBroadcastChannel[] = [];
  onmessage: ((event: MessageEvent) => void) | null = null;
  closed = false;
  readonly sent: unknown[] = [];
  constructor(readonly name: string) {
    FakeBroadcastChannel.open.push(this);
  }
  postMessage(data: unknown): void {
    this.sent.push(data);
    for (const other of FakeBroadcastChannel.open) {
      if (other !== this && other.name === this.name) other.onmessage?.(new MessageEvent('message', { data }));
    }
  }
  close(): void {
    this.closed = true;
    FakeBroadcastChannel.open = FakeBroadcastChannel.open.filter((c) => c !== this);
  }
}

let tokenCounter = 0;
/** A fresh token response on the (fake) clock: `ttl` seconds, server clock `skew` ms ahead. */
export function tokenBody(ttl: number | null = 3600, skew = 0): TokenResponse {
  const serverTime = Date.now() + skew;
  return { token: `tok-${++tokenCounter}-secret`, expiresAt: ttl === null ? null : serverTime + ttl * 1000, serverTime };
}

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

/** A BFF error answer; `retryable` as the BFF says it by default (429 and 5xx), or as given (a vendor's refusal is a 502 with `false`). */
export const bffError = (status: number, code: string, headers: Record<string, string> = {}, retryable = status === 429 || status >= 500): Response =>
  json({ error: { code, message: `refused: ${code}`, retryable } }, status, headers);

/** Stubs `fetch` with a queue of answers (functions may return a promise that never settles). */
export function stubFetch(...answers: Array<Response | (() => Response | Promise<Response>)>) {
  const fetchMock = vi.fn(async (_url: string, _init?: RequestInit): Promise<Response> => {
    const next = answers.length > 1 ? answers.shift() : answers[0];
    if (!next) throw new TypeError('no answer queued');
    return typeof next === 'function' ? next() : next.clone();
  });
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

export interface Mounted {
  el: EmbeddedDashboard;
  frame: HTMLIFrameElement;
  win: { postMessage: ReturnType<typeof vi.fn> };
  events: CustomEvent[];
  /** Simulates a message from the iframe (by default from the right window and origin). */
  fromFrame(data: unknown, init?: { origin?: string; source?: unknown }): void;
}

let urlCounter = 0;
/**
 * A token URL of its own for each test: requests in flight are shared per URL across the page, and
 * one a test leaves hanging must not be joined by the next test.
 */
export const freshTokenUrl = (): string => `/t${++urlCounter}/embed/token`;
/** What the element resolves its `token-url` to (and names its BroadcastChannel after). */
export const resolved = (el: EmbeddedDashboard): string => new URL(el.tokenUrl, document.baseURI).href;

const EVENTS = [
  'dashboard-load',
  'dashboard-token',
  'dashboard-error',
  'dashboard-resize',
  'dashboard-variable-change',
  'dashboard-custom-event',
  'dashboard-data-mask',
];

let currentTokenUrl = freshTokenUrl();
/** Starts a new test: elements mounted from now on share a new token URL. */
export const nextTokenUrl = (): string => (currentTokenUrl = freshTokenUrl());

/** A fresh, connected element whose iframe has a spy window (happy-dom loads no iframe pages). An attribute given as `null` is left unset. */
export async function mount(attributes: Record<string, string | null> = {}): Promise<Mounted> {
  const el = document.createElement('embedded-dashboard');
  const events: CustomEvent[] = [];
  for (const type of EVENTS) el.addEventListener(type, (e) => events.push(e as CustomEvent));
  for (const [name, value] of Object.entries({
    dashboard: 'sales',
    'src-template': TEMPLATE,
    environment: 'Customer',
    'token-url': currentTokenUrl,
    ...attributes,
  })) {
    if (value !== null) el.setAttribute(name, value);
  }
  document.body.append(el);
  await el.updateComplete;
  const frame = el.shadowRoot!.querySelector('iframe')!;
  const win = { postMessage: vi.fn() };
  Object.defineProperty(frame, 'contentWindow', { value: win, configurable: true });
  return {
    el,
    frame,
    win,
    events,
    fromFrame(data, init = {}) {
      window.dispatchEvent(new MessageEvent('message', { data, origin: init.origin ?? ORIGIN, source: ('source' in init ? init.source : win) as Window }));
    },
  };
}

/** Lets fetch promises and Lit updates settle without moving the fake clock. */
export const settle = async (el?: EmbeddedDashboard): Promise<void> => {
  await vi.advanceTimersByTimeAsync(0);
  await el?.updateComplete;
};

export const postedTokens = (win: Mounted['win']): string[] =>
  win.postMessage.mock.calls.filter(([m]) => m.event === 'updateToken').map(([m]) => m.detail.token);

/**
 * Registers the hooks every element test file needs: a fake clock at a fixed date, the fake
 * BroadcastChannel, a fresh token-url per test, and a clean page and globals afterwards.
 */
export function useElementTestEnvironment(): void {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    vi.stubGlobal('BroadcastChannel', FakeBroadcastChannel);
    FakeBroadcastChannel.open = [];
    nextTokenUrl();
  });

  afterEach(() => {
    document.body.replaceChildren();
    vi.useRealTimers();
    vi.unstubAllGlobals();
    // Heights remembered for a repeat view (frame/height-memory.ts) are per test.
    sessionStorage.clear();
    vi.restoreAllMocks();
  });
}
