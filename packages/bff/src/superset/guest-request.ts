import type { SupersetGuestTokenRequest, SupersetGuestUser, TokenRequest } from '@embedded-dashboard/protocol';
import type { Caller } from '../caller/caller.js';
import { hasControlCharacter, renderSqlTemplate } from '../claim-template/claim-template.js';
import { BffError } from '../errors/bff-error.js';
import type { SupersetSettings } from './options.js';

const MAX_NAME_CHARS = 256;

/** A display claim (username, names): a short string without control characters, else left out. */
function displayClaim(claims: Readonly<Record<string, unknown>>, name: string): string | undefined {
  if (!Object.hasOwn(claims, name)) return undefined;
  const value = claims[name];
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  if (value.length > MAX_NAME_CHARS || hasControlCharacter(value))
    throw new BffError('forbidden', `session claim "${name}" must be at most ${MAX_NAME_CHARS} characters without control characters`);
  return value;
}

/**
 * What a guest token says for `caller` and the dashboard it asked for: the guest `user` from
 * the session's claims, the one dashboard as the only resource (an allowed one, else 403), and
 * the row-level security rules rendered from the session (never from the request). A claim the
 * rules cannot render safely is a 403: the token is never issued with a rule left out.
 */
export function guestTokenRequest(settings: SupersetSettings, caller: Caller, scope: TokenRequest): SupersetGuestTokenRequest {
  const { dashboard } = scope;
  if (dashboard === undefined)
    throw new BffError('bad_request', 'the body must name the dashboard: {"dashboard": "<embedded dashboard uuid>"} (a guest token is for one dashboard)');
  if (scope.chart !== undefined) throw new BffError('bad_request', '"chart": Superset embeds whole dashboards; leave it out');
  if (!settings.dashboards.has(dashboard)) throw new BffError('forbidden', `dashboard "${dashboard}" is not one this BFF embeds`);
  const { claims } = caller;
  const names = settings.user;
  const user: SupersetGuestUser = { username: displayClaim(claims, names.username) ?? `embed-${caller.group.group.user_group_id}` };
  const firstName = displayClaim(claims, names.firstName);
  const lastName = displayClaim(claims, names.lastName);
  if (firstName !== undefined) user.first_name = firstName;
  if (lastName !== undefined) user.last_name = lastName;
  const rls = settings.rls.map(({ clause, dataset }) => ({ clause: renderSqlTemplate(clause, claims), ...(dataset !== undefined && { dataset }) }));
  return { user, resources: [{ type: 'dashboard', id: dashboard }], rls };
}
