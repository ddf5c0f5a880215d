import { ENVIRONMENTS, exploEmbedKey, isExploEmbedKeyId, type Environment } from '@embedded-dashboard/protocol';

/** An embed secret as configured: the id and value the vendor's settings page shows, and its environment. */
export interface EmbedSecretOption {
  /** The secret's id: the `kid` of every token it encrypts (1-128 visible ASCII characters, no `:`). */
  id: string;
  /** The secret's value: its 32 UTF-8 bytes are the A256GCM key (packages/protocol, `exploEmbedKey`). */
  value: string;
  /** Whose customers its tokens name (customer ids are unique per environment). Default `Customer`. */
  environment?: Environment;
}

/** A usable embed secret: its key bytes, never its value text. */
export interface EmbedSecret {
  id: string;
  key: Uint8Array;
  environment: Environment;
}

/** Checks the configured secrets; throws a `TypeError` naming the problem (never repeating a value). */
export function resolveEmbedSecrets(options: readonly EmbedSecretOption[] | undefined): EmbedSecret[] {
  if (options === undefined) return [];
  const given: unknown = options;
  if (!Array.isArray(given)) throw new TypeError('embedSecrets must be an array of { id, value, environment? }');
  const ids = new Set<string>();
  return options.map((option) => {
    if (!isExploEmbedKeyId(option?.id)) throw new TypeError('embedSecrets[].id must be 1-128 visible ASCII characters without spaces or ":"');
    if (ids.has(option.id)) throw new TypeError(`embedSecrets repeats the id ${option.id}`);
    ids.add(option.id);
    const environment = option.environment ?? 'Customer';
    if (!ENVIRONMENTS.includes(environment)) throw new TypeError(`embedSecrets[].environment must be one of ${ENVIRONMENTS.join(', ')}`);
    let key: Uint8Array;
    try {
      key = exploEmbedKey(option.value);
    } catch (error) {
      // eslint-disable-next-line preserve-caught-error -- the cause may hold the secret's value; the message says what is wrong with it.
      throw new TypeError(`embedSecrets (id ${option.id}): ${(error as Error).message}`);
    }
    return { id: option.id, key, environment };
  });
}

/**
 * The secrets an emulator decrypts embed tokens with. `generate_jwt` without a `key_id` uses the
 * first configured secret of the caller's environment, else one the emulator generated for it at
 * start ("If no key id is provided, Explo will generate one"): its tokens work in the emulator's
 * frames, and no one else holds its key.
 */
export class EmbedKeyring {
  readonly #byId = new Map<string, EmbedSecret>();
  readonly #defaults = new Map<Environment, EmbedSecret>();

  constructor(secrets: readonly EmbedSecret[]) {
    for (const secret of secrets) {
      this.#byId.set(secret.id, secret);
      if (!this.#defaults.has(secret.environment)) this.#defaults.set(secret.environment, secret);
    }
    for (const environment of ENVIRONMENTS) {
      if (this.#defaults.has(environment)) continue;
      let id = `emulator-generated-${environment.toLowerCase()}`;
      while (this.#byId.has(id)) id += '-';
      const generated: EmbedSecret = { id, key: crypto.getRandomValues(new Uint8Array(32)), environment };
      this.#byId.set(id, generated);
      this.#defaults.set(environment, generated);
    }
  }

  /** The secret with this id, if any. */
  get(id: string): EmbedSecret | undefined {
    return this.#byId.get(id);
  }

  /** What `generate_jwt` encrypts with when the request names no `key_id`. */
  defaultFor(environment: Environment): EmbedSecret {
    return this.#defaults.get(environment)!;
  }
}
