import { backoffDelay } from '@embedded-dashboard/protocol';
import type {
  ExploGenerateJwtInput,
  ExploGenerateJwtResponse,
  GetOrCreateUserGroupResponse,
  RotateUserGroupTokenResponse,
  UpdateUserGroupResponse,
  UpstreamApiName,
  UserGroupInput,
} from '@embedded-dashboard/protocol';
import { abortedError, toApiError } from '../errors/call-errors.js';
import { UserGroupApiError, UserGroupDeadlineError } from '../errors/errors.js';
import { ConcurrencyLimit } from '../concurrency/concurrency-limit.js';
import { defaultTransport, sha256Hex } from '#client-platform';
import type { Transport } from '../transport/types.js';
import { generateJwtBody, rotateBody, userGroupBody } from '../validation/input.js';
import { resolveOptions, type ResolvedOptions } from '../validation/options.js';
import { interpretResponse, type Expectation, type ResponseFor } from '../validation/response.js';
import { exchange, type ExchangeContext } from './exchange.js';
import { defaultSleep, invoke, linkedController, raceAbort } from '../transport/signals.js';

/** Options of {@link UserGroupClient}. Invalid values throw a `TypeError` naming the option. */
export interface UserGroupClientOptions {
  /** Vendor base URL (http or https), e.g. `http://127.0.0.1:8790`; the API's paths are appended. */
  baseUrl: string;
  /** The vendor API token, sent as `Authorization: Token <apiToken>` (`Explo-Authorization` with `explo-customer`). Never appears in errors. */
  apiToken: string;
  /**
   * Which upstream API to speak. `user-group-service` (default): the spec's `/api/user`
   * (GET with a body / PUT / POST). `explo-customer`: the vendor's current Customer API
   * (`POST /api/create_customer/`, `/api/update_customer/`, `/api/refresh_customer_token/`).
   * Both give the same typed results; the Customer API's carry no `team_id` and no
   * `api_environment_tag`.
   */
  api?: UpstreamApiName;
  /** Network seam. Default: {@link createNodeTransport} with `maxSockets: maxInFlight`. */
  transport?: Transport;
  /** Per attempt, in ms. Default `3_000` (`VENDOR_ATTEMPT_TIMEOUT_MS` of the deadline budget). */
  timeoutMs?: number;
  /**
   * The whole call including retries and queueing, in ms. Default `6_000`
   * (`VENDOR_CALL_DEADLINE_MS`): inside the BFF's request deadline, which is inside the element's.
   */
  deadlineMs?: number;
  /** Attempts of get-or-create and update (rotate always makes one). Default `4`. */
  maxAttempts?: number;
  /** Requests this client has in flight at once; more wait in a queue. Default `8`. */
  maxInFlight?: number;
  /** Backoff before retry n: random in [0, min(maxMs, baseMs·2^(n-1))). Defaults `200` / `5_000`. */
  backoff?: { baseMs?: number; maxMs?: number };
  /** Source of jitter in [0, 1). Default `Math.random`. */
  random?: () => number;
  /** Waits between attempts; should reject when `signal` aborts. Default: `setTimeout`. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Clock in epoch ms, for the deadline and `Retry-After` dates. Default `Date.now`. */
  now?: () => number;
}

/** Per-call options. */
export interface CallOptions {
  /** Aborts the call (the error's code is `aborted`). */
  signal?: AbortSignal;
}

/**
 * Typed client of the vendor's `/api/user` API: get-or-create (GET with a JSON body), update
 * (PUT) and rotate (POST). Every response is checked against the spec; every failure is a
 * {@link UserGroupApiError}. get-or-create and update are retried on network errors, timeouts,
 * 5xx and 429 (backoff with full jitter, `Retry-After` honoured) within one deadline; rotate is
 * never retried, because it is not idempotent.
 *
 * @example
 * const client = new UserGroupClient({ baseUrl: 'http://127.0.0.1:8790', apiToken: 'dev-customer-key' });
 * const { user_group } = await client.getOrCreateUserGroup({
 *   name: 'Acme Corp', user_group_id: 'acme', mapping: {}, properties: { region: 'EU' },
 * });
 * console.log(user_group.token);
 * client.close();
 */
export class UserGroupClient {
  readonly #options: ResolvedOptions;
  readonly #ownTransport: (Transport & { close(): void }) | undefined;
  readonly #exchange: ExchangeContext;
  readonly #random: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #now: () => number;
  #closed = false;
  /**
   * A short, non-secret fingerprint of the vendor account this client calls as: the first 16 hex
   * digits of SHA-256 over the API URL and the API token. Caches shared by several deployments
   * (the BFF's store) key their entries by it, so two accounts never see each other's tokens.
   */
  readonly accountId: string;

  constructor(options: UserGroupClientOptions) {
    this.#options = resolveOptions(options);
    const { transport, maxInFlight, random, sleep, now } = this.#options;
    this.#ownTransport = transport ? undefined : defaultTransport(maxInFlight);
    const sender = transport ?? this.#ownTransport!;
    const getOrCreate = this.#options.api.route('getOrCreate');
    if (getOrCreate.method === 'GET' && sender.getWithBody === false) {
      this.#ownTransport?.close();
      throw new TypeError(
        `UserGroupClient: the ${this.#options.api.name} API's get-or-create is a GET with a JSON body, which fetch refuses to send; ` +
          "use api: 'explo-customer' (POSTs only), or a transport that can send it (createNodeTransport, on Node)",
      );
    }
    this.#exchange = { options: this.#options, transport: sender, slots: new ConcurrencyLimit(maxInFlight) };
    this.#random = random ?? Math.random;
    this.#sleep = sleep ?? defaultSleep;
    this.#now = now ?? Date.now;
    this.accountId = sha256Hex(`${this.#options.url}\n${this.#options.apiToken}`).slice(0, 16);
  }

  /** The upstream API profile this client speaks. */
  get api(): UpstreamApiName {
    return this.#options.api.name;
  }

  /**
   * get-or-create (`GET /api/user`, or `POST /api/create_customer/`): returns the group with this `user_group_id`, creating it when absent.
   * An existing group comes back as stored (not updated): compare and call
   * {@link UserGroupClient.updateUserGroup} when name, mapping or properties changed.
   * Retried on transient failures.
   */
  async getOrCreateUserGroup(input: UserGroupInput, options?: CallOptions): Promise<GetOrCreateUserGroupResponse> {
    const { body, input: clean } = userGroupBody('getOrCreateUserGroup', input, this.#options.api.groupBody);
    return this.#call({ op: 'getOrCreate', input: clean }, body, true, [], options);
  }

  /** update (`PUT /api/user`, or `POST /api/update_customer/`): updates an existing group's name, mapping and properties. Retried on transient failures. */
  async updateUserGroup(input: UserGroupInput, options?: CallOptions): Promise<UpdateUserGroupResponse> {
    const { body, input: clean } = userGroupBody('updateUserGroup', input, this.#options.api.groupBody);
    return this.#call({ op: 'update', input: clean }, body, true, [], options);
  }

  /**
   * rotate (`POST /api/user`, or `POST /api/refresh_customer_token/`) with `current_token`: the returned `user_group.token` replaces it.
   * Made exactly once, never retried: after a failure the old token may or may not still work,
   * so recover with {@link UserGroupClient.getOrCreateUserGroup}, which returns the current token.
   */
  async rotateUserGroupToken(currentToken: string, options?: CallOptions): Promise<RotateUserGroupTokenResponse> {
    const body = rotateBody('rotateUserGroupToken', currentToken);
    return this.#call({ op: 'rotate' }, body, false, [currentToken], options);
  }

  /**
   * generate_jwt (`POST /api/generate_jwt/`, `api: 'explo-customer'` only): an embed token for a
   * customer and a dashboard, encrypted by the vendor with the embed secret `key_id` (default
   * expiration 24 hours). `jwt` is a bearer credential: hand it to the dashboard frame only.
   * Retried on transient failures (a new token replaces nothing). Throws a `TypeError` with
   * `api: 'user-group-service'`, which has no such operation.
   */
  async generateJwt(input: ExploGenerateJwtInput, options?: CallOptions): Promise<ExploGenerateJwtResponse> {
    if (!this.#options.api.embedTokens)
      throw new TypeError(`UserGroupClient: generateJwt needs api: 'explo-customer' (the ${this.#options.api.name} API has no generate_jwt)`);
    const { body, input: clean } = generateJwtBody('generateJwt', input);
    return this.#call({ op: 'generateJwt', input: clean }, body, true, [], options);
  }

  /**
   * Releases the keep-alive sockets of the default transport (an injected transport is the
   * caller's to close). Calls still in flight fail with `network`; later calls throw a `TypeError`.
   */
  close(): void {
    this.#closed = true;
    this.#ownTransport?.close();
  }

  async #call<E extends Expectation>(
    expectation: E,
    body: string,
    idempotent: boolean,
    extraSecrets: string[],
    options: CallOptions | undefined,
  ): Promise<ResponseFor<E['op']>> {
    const callerSignal = callSignal(options);
    if (this.#closed) throw new TypeError('UserGroupClient: the client is closed');
    const { apiToken, deadlineMs, maxAttempts, baseMs, maxMs } = this.#options;
    const secrets = [apiToken, ...extraSecrets];
    if (callerSignal?.aborted) throw abortedError(callerSignal, secrets);

    const deadlineAt = this.#now() + deadlineMs;
    const deadline = new AbortController();
    const deadlineTimer = setTimeout(() => deadline.abort(new Error('deadline exceeded')), deadlineMs);
    const scope = linkedController([callerSignal, deadline.signal]);
    let lastError: UserGroupApiError | undefined;
    const interrupted = (caught: unknown): UserGroupApiError => {
      if (callerSignal?.aborted) return abortedError(callerSignal, secrets);
      if (deadline.signal.aborted) return new UserGroupDeadlineError(`call exceeded its ${deadlineMs} ms deadline`, { cause: lastError });
      return toApiError(caught, secrets);
    };
    try {
      for (let attempt = 1; ; attempt += 1) {
        const outcome = await exchange(this.#exchange, expectation.op, body, scope.controller.signal, interrupted, attempt);
        let error: UserGroupApiError;
        if (outcome instanceof UserGroupApiError) {
          error = outcome;
        } else {
          try {
            return interpretResponse(expectation, outcome, secrets, this.#now(), this.#options.api);
          } catch (caught) {
            if (!(caught instanceof UserGroupApiError)) throw caught;
            error = caught;
          }
        }
        lastError = error;
        if (!idempotent || !error.retryable || error.code === 'deadline_exceeded' || attempt >= maxAttempts) throw error;
        const delay = error.retryAfterMs ?? backoffDelay(attempt, baseMs, maxMs, this.#random);
        // Waiting past the deadline only to fail then helps nobody: report what went wrong now.
        if (this.#now() + delay >= deadlineAt) throw error;
        try {
          await raceAbort(
            invoke(() => this.#sleep(delay, scope.controller.signal)),
            scope.controller.signal,
          );
        } catch (caught) {
          throw interrupted(caught);
        }
      }
    } finally {
      clearTimeout(deadlineTimer);
      scope.dispose();
    }
  }
}

/**
 * Creates a {@link UserGroupClient}.
 *
 * @example
 * const client = createUserGroupClient({ baseUrl: process.env.EMBED_UPSTREAM_URL!, apiToken: process.env.EMBED_API_TOKEN! });
 */
export function createUserGroupClient(options: UserGroupClientOptions): UserGroupClient {
  return new UserGroupClient(options);
}

function callSignal(options: unknown): AbortSignal | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) throw new TypeError('UserGroupClient: call options must be an object');
  const { signal } = options as { signal?: unknown };
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new TypeError('UserGroupClient: "signal" must be an AbortSignal');
  return signal;
}
