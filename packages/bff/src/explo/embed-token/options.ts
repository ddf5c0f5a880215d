/*
 * Configuration step 2 of 5 for embed tokens (options; ARCHITECTURE §2.1): the `embedToken` option.
 */

/**
 * Embed tokens (the vendor's embed secrets; packages/protocol/README.md, "Embed secrets"):
 * `POST /embed/token` answers a short-lived JWE that names the session's customer and one
 * dashboard, instead of the customer token, which then never leaves the BFF.
 *
 * @example
 * ```ts
 * createBffApp({ upstream, session, embedToken: { keyId: process.env.EMBED_JWT_KEY_ID!, key: process.env.EMBED_JWT_KEY! } });
 * ```
 */
export interface EmbedTokenOptions {
  /** The embed secret's id, the tokens' `kid`: 1-128 visible ASCII characters, no spaces or `:`. */
  keyId: string;
  /**
   * The embed secret's value: its UTF-8 bytes, exactly 32, are the A256GCM key. Redacted from
   * every log line like the API token. Required with `mint: 'local'`; with `mint: 'vendor'` the
   * vendor encrypts, so it may be left out (when given it is checked and redacted all the same).
   */
  key?: string;
  /** The dashboards (embed ids) a session may get a token for; any other is `403 forbidden`. Default: any. */
  dashboards?: string[];
  /**
   * `local` (default): the BFF encrypts each token itself, no vendor call per page view.
   * `vendor`: the vendor mints them (`generate_jwt`, an upstream with `api: 'explo-customer'`),
   * through the vendor budget and circuit breaker; one token per customer, dashboard and page
   * origin is shared by every session and process of the store until near its expiry.
   */
  mint?: 'local' | 'vendor';
  /**
   * Locks the dashboards' editable sections (the vendor's "disable editable section editing"):
   * claim `des` in a token the BFF mints, `disable_editable_section_editing` when the vendor mints.
   * Default: not said (the vendor's default, editing allowed where the dashboard enables it).
   */
  disableEditableSectionEditing?: boolean;
}
