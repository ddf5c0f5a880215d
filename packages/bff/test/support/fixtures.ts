import { SignJWT, type JWTPayload } from 'jose';
import type { Hono } from 'hono';
import type {
  Environment,
  GetOrCreateUserGroupResponse,
  RotateUserGroupTokenResponse,
  UpdateUserGroupResponse,
  UserGroupInput,
} from '@embedded-dashboard/protocol';
import { UserGroupHttpStatusError } from '@embedded-dashboard/client';
import { createJsonLogger, type BffLogger } from '../../src/observability/logger.js';
import type { UserGroupUpstream } from '../../src/customer-token/upstream.js';

/** A vendor API token nobody could mistake: every test scans for it in what the BFF emits. */
export const API_TOKEN = 'LEAKCHECK-vendor-api-token-9f27c1d4e8b3';
export const SESSION_SECRET = 'test-session-secret-0123456789abcdef-LEAKCHECK';
export const SESSION_KEY = new TextEncoder().encode(SESSION_SECRET);

/** Everything the BFF said during a test file: responses (status, headers, body) and log lines. */
export const emitted: string[] = [];

export function captureLogs(): { logger: BffLogger; lines: string[] } {
  const lines: string[] = [];
  const logger = createJsonLogger({
    write: (line) => {
      lines.push(line);
      emitted.push(line);
    },
    // No secrets given on purpose: the scan proves the BFF never puts them in a line at all.
    level: 'debug',
  });
  return { logger, lines };
}

/** Fails when the vendor API token or the session secret appears in anything emitted so far. */
export function findLeaks(): string[] {
  return emitted.filter((text) => text.includes(API_TOKEN) || text.includes(SESSION_SECRET));
}

/** `app.request`, recording the response for the leak scan. */
export async function call(app: Hono, path: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: unknown; text: string }> {
  const res = await app.request(path, init);
  return record(res);
}

export async function record(res: Response): Promise<{ status: number; headers: Headers; body: unknown; text: string }> {
  const text = await res.text();
  emitted.push(`${res.status} ${JSON.stringify([...res.headers])} ${text}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

export const acme = { org_id: 'acme', org_name: 'Acme Corp', embed_properties: { region: 'EU', plan: 'pro' } };

/** `iat` of the last session signed here: each one is issued a second after it, as a login would be. */
let lastIssuedAt = 0;

/**
 * An HS256 session JWT signed with the test secret, valid for an hour unless overridden. Each
 * session signed is issued a second after the one before (counting from an hour ago, so never
 * in the future), as an identity provider's later logins are: the newest session decides what
 * the vendor's group holds (`DriftPolicy`).
 */
export async function session(claims: JWTPayload = acme, options: { expSeconds?: number; key?: Uint8Array } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  lastIssuedAt = Math.max(lastIssuedAt + 1, now - 3600);
  return new SignJWT({ exp: now + (options.expSeconds ?? 3600), ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt(Math.min(lastIssuedAt, now))
    .sign(options.key ?? SESSION_KEY);
}

export function tokenRequest(jwt: string | undefined, body: unknown = {}, headers: Record<string, string> = {}): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(jwt === undefined ? {} : { authorization: `Bearer ${jwt}` }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  };
}

type Failure = Error | undefined;

/**
 * An in-process vendor for edge cases the emulator cannot stage on demand: counted calls,
 * groups with tokens, an environment tag, and one-shot or permanent failures per operation.
 */
export class FakeUpstream implements UserGroupUpstream {
  readonly calls = { getOrCreate: 0, update: 0, rotate: 0 };
  readonly groups = new Map<string, { group: UserGroupInput; token: string }>();
  environment: Environment | null = 'Customer';
  failNext: { getOrCreate?: Failure[]; update?: Failure[]; rotate?: Failure[] } = {};
  /** Resolves pending calls only when released, to stage concurrency. */
  gate: Promise<void> | undefined;
  /** Applied after a rotate call fails, to model a rotation that happened but whose answer was lost. */
  rotateHappenedBeforeFailure = false;
  #serial = 0;

  #fail(op: 'getOrCreate' | 'update' | 'rotate'): void {
    const error = this.failNext[op]?.shift();
    if (error !== undefined) throw error;
  }

  #newToken(): string {
    this.#serial += 1;
    return `ugt-${this.#serial}-${Math.random().toString(36).slice(2)}`;
  }

  async getOrCreateUserGroup(input: UserGroupInput): Promise<GetOrCreateUserGroupResponse> {
    this.calls.getOrCreate += 1;
    await this.gate;
    this.#fail('getOrCreate');
    let stored = this.groups.get(input.user_group_id);
    const created = stored === undefined;
    if (stored === undefined) {
      stored = { group: structuredClone(input), token: this.#newToken() };
      this.groups.set(input.user_group_id, stored);
    }
    return {
      success: 1,
      new_user_group: created,
      user_group: { team_id: 1, token: stored.token, name: stored.group.name, provided_id: input.user_group_id, properties: stored.group.properties },
    };
  }

  async updateUserGroup(input: UserGroupInput): Promise<UpdateUserGroupResponse> {
    this.calls.update += 1;
    await this.gate;
    this.#fail('update');
    const stored = this.groups.get(input.user_group_id);
    if (stored === undefined) throw new Error('fake upstream: update of an unknown group');
    stored.group = structuredClone(input);
    return {
      success: 1,
      user_group: {
        team_id: 1,
        token: stored.token,
        name: input.name,
        provided_id: input.user_group_id,
        properties: input.properties,
        api_environment_tag: this.environment,
      },
    };
  }

  async rotateUserGroupToken(currentToken: string): Promise<RotateUserGroupTokenResponse> {
    this.calls.rotate += 1;
    await this.gate;
    const stored = [...this.groups.values()].find((g) => g.token === currentToken);
    const failure = this.failNext.rotate?.shift();
    if (failure !== undefined) {
      if (this.rotateHappenedBeforeFailure && stored !== undefined) stored.token = this.#newToken();
      throw failure;
    }
    // As the emulator: 404 unknown_token for a token that is not a group's current one.
    if (stored === undefined) throw new UserGroupHttpStatusError('fake upstream: unknown token', { status: 404 });
    stored.token = this.#newToken();
    return {
      success: 1,
      user_group: { team_id: 1, token: stored.token, name: stored.group.name, provided_id: stored.group.user_group_id, api_environment_tag: this.environment },
    };
  }
}

/** A promise and its resolver, to hold fake upstream calls open. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
