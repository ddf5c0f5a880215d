import { isTokenResponse } from '@embedded-dashboard/protocol';
import { signSession, tokenRequestHeaders } from '../lib/session.js';

export interface BurstResult {
  /** Token requests that did not answer 200 with a token. */
  failed: number;
  /** Groups whose callers were not all handed the same token. */
  inconsistentGroups: number;
}

/**
 * Fires `requests` token requests at once, spread round-robin over `groups` customers and over
 * the given BFF token URLs, and checks every caller of one group got the same token.
 */
export async function burst(tokenUrls: readonly string[], groupIds: readonly string[], requests: number): Promise<BurstResult> {
  const sessions = await Promise.all(groupIds.map((id) => signSession(id)));
  const calls = Array.from({ length: requests }, async (_, index) => {
    const group = index % groupIds.length;
    const url = tokenUrls[Math.floor(index / groupIds.length) % tokenUrls.length] as string;
    try {
      const response = await fetch(url, { method: 'POST', headers: tokenRequestHeaders(sessions[group] as string), body: '{}' });
      const body: unknown = await response.json().catch(() => undefined);
      return { group, token: response.status === 200 && isTokenResponse(body) ? body.token : undefined };
    } catch {
      return { group, token: undefined };
    }
  });
  const answers = await Promise.all(calls);
  const tokensByGroup = new Map<number, Set<string>>();
  for (const answer of answers) {
    if (answer.token === undefined) continue;
    const tokens = tokensByGroup.get(answer.group) ?? new Set<string>();
    tokens.add(answer.token);
    tokensByGroup.set(answer.group, tokens);
  }
  return {
    failed: answers.filter((answer) => answer.token === undefined).length,
    inconsistentGroups: [...tokensByGroup.values()].filter((tokens) => tokens.size > 1).length,
  };
}
