import { vi } from 'vitest';
import type { SwitchboardMessage } from '@embedded-dashboard/protocol';
import type { Mounted } from './fixtures.js';

/**
 * A `MessageChannel` stand-in for happy-dom: each port delivers a structured clone of what the
 * other posts, in a microtask (as a browser delivers in a task), only while both are open.
 */
export class FakePort {
  onmessage: ((event: MessageEvent) => void) | null = null;
  other!: FakePort;
  closed = false;
  postMessage(data: unknown): void {
    const copy = structuredClone(data);
    queueMicrotask(() => {
      if (!this.closed && !this.other.closed) this.other.onmessage?.(new MessageEvent('message', { data: copy }));
    });
  }
  start(): void {}
  close(): void {
    this.closed = true;
  }
}

export class FakeMessageChannel {
  readonly port1 = new FakePort();
  readonly port2 = new FakePort();
  constructor() {
    this.port1.other = this.port2;
    this.port2.other = this.port1;
  }
}

/**
 * The Superset frame's side of the switchboard, as Superset 6.1's `embedded` entry defines it
 * (packages/protocol/src/superset/switchboard.ts): it answers `get` for the methods given in
 * `answers` (a function may return a promise, or `NO_ANSWER` to stay silent), and records every
 * `emit` (the guest tokens) and every message the host sent.
 */
export const NO_ANSWER = Symbol('no answer');
export interface SupersetFrame {
  port: FakePort;
  received: SwitchboardMessage[];
  guestTokens(): string[];
  /** Emits a host method (e.g. `observeDataMask`) from the frame. */
  emit(method: string, args: unknown): void;
  /** Posts anything on the frame's port. */
  raw(data: unknown): void;
  answers: Record<string, (args: unknown) => unknown>;
}

/** The handshakes the element posted to `win` (message, target origin, transfer list). */
export const handshakes = (win: Mounted['win']) =>
  win.postMessage.mock.calls.filter(([message]) => (message as { type?: string }).type === '__embedded_comms__') as [unknown, string, FakePort[]][];

/** Fires the frame's `load` and takes the port the element hands over: the frame side from then on. */
export function loadSupersetFrame(m: Pick<Mounted, 'frame' | 'win'>, answers: Record<string, (args: unknown) => unknown> = {}): SupersetFrame {
  const before = handshakes(m.win).length;
  m.frame.dispatchEvent(new Event('load'));
  const all = handshakes(m.win);
  if (all.length !== before + 1) throw new Error('the element sent no handshake on load');
  const port = all.at(-1)![2][0]!;
  const frame: SupersetFrame = {
    port,
    received: [],
    answers: { getScrollSize: () => ({ width: 800, height: 900 }), ...answers },
    guestTokens: () =>
      frame.received
        .filter((m) => m.switchboardAction === 'emit' && m.method === 'guestToken')
        .map((m) => (m as { args: { guestToken: string } }).args.guestToken),
    emit: (method, args) => port.postMessage({ switchboardAction: 'emit', method, args }),
    raw: (data) => port.postMessage(data),
  };
  port.onmessage = ({ data }) => void answer(data as SwitchboardMessage);
  const answer = async (message: SwitchboardMessage): Promise<void> => {
    frame.received.push(message);
    if (message.switchboardAction !== 'get') return;
    const method = frame.answers[message.method];
    if (!method) {
      port.postMessage({ switchboardAction: 'error', messageId: message.messageId, error: `[superset] Method "${message.method}" is not defined` });
      return;
    }
    try {
      const result = await method(message.args);
      if (result !== NO_ANSWER) port.postMessage({ switchboardAction: 'reply', messageId: message.messageId, result });
    } catch {
      port.postMessage({ switchboardAction: 'error', messageId: message.messageId, error: `[superset] Method "${message.method}" threw an error` });
    }
  };
  return frame;
}

/** Installs the fake channel for one test file (happy-dom has no `MessageChannel` that transfers). */
export function useFakeMessageChannel(): void {
  vi.stubGlobal('MessageChannel', FakeMessageChannel);
}
