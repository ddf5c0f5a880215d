import { isTokenResponse } from '@embedded-dashboard/protocol';

/** Bounded, so a flood of sign-ins cannot grow it without limit. */
const MAX_CUSTOMERS = 1000;

/**
 * The last user group token the BFF handed to each customer, learned server-side from the
 * BFF's own answers to that customer's verified session. The demo's "expire the token now"
 * button needs it; it never takes a token from the browser.
 */
export class TokenLedger {
  private readonly tokens = new Map<string, string>();

  record(customerId: string, token: string): void {
    this.tokens.delete(customerId);
    this.tokens.set(customerId, token);
    if (this.tokens.size > MAX_CUSTOMERS) this.tokens.delete(this.tokens.keys().next().value as string);
  }

  latest(customerId: string): string | undefined {
    return this.tokens.get(customerId);
  }

  /** Records the token of a successful BFF token answer; the response is passed on untouched. */
  async observe(customerId: string | undefined, response: Response): Promise<Response> {
    if (customerId === undefined || response.status !== 200) return response;
    try {
      const body: unknown = await response.clone().json();
      if (isTokenResponse(body)) this.record(customerId, body.token);
    } catch {
      // Not JSON: nothing to learn, and the caller gets the response as it was.
    }
    return response;
  }
}
