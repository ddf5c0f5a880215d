import type { DashboardMessage } from '@embedded-dashboard/protocol';

/*
 * The vendor's (Explo's) message names, for the page's `explo` mode. Inlined into the page as
 * source text (`Function.prototype.toString`), so each function is self-contained.
 */

/** One of our page's messages under the vendor's name and detail (its expiry event carries no documented detail). */
export function toVendorMessage(message: DashboardMessage): { event: string; detail: object } {
  const names: Record<string, string> = {
    dashboardResized: 'dashboardUpdated',
    variableUpdated: 'sendVariableUpdatedEvent',
    tokenExpired: 'customerJwtExpired',
  };
  return {
    event: names[message.event] ?? message.event,
    detail: message.event === 'tokenExpired' ? {} : message.detail,
  };
}

/**
 * The vendor's host events as ours (then checked by parseHostMessage like any other). Bounds
 * of its own, as the vendor's page would have: a JWT is what the data route takes as a bearer
 * token (1–4096 printable ASCII characters); a variable name is 1–256 characters and not one
 * of Object.prototype's (`__proto__`, `constructor`, …); at most 256 variables and 10,000
 * characters a text value. Anything else is not a vendor event: `undefined`, the whole message ignored.
 */
export function fromVendorMessage(data: unknown): unknown {
  const message = data as { event?: unknown; detail?: { jwt?: unknown; variables?: unknown } } | null;
  const detail = message?.detail;
  if (typeof detail !== 'object' || detail === null) return undefined;
  if (message!.event === 'updateCustomerJwt') {
    return typeof detail.jwt === 'string' && /^[\x21-\x7e]{1,4096}$/.test(detail.jwt) ? { event: 'updateToken', detail: { token: detail.jwt } } : undefined;
  }
  const list = message!.event === 'updateExploDashboardVariable' ? [detail] : message!.event === 'updateExploDashboardVariables' ? detail.variables : undefined;
  if (!Array.isArray(list) || list.length > 256) return undefined;
  const variables: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const item of list as { varName?: unknown; value?: unknown }[]) {
    if (typeof item !== 'object' || item === null) return undefined;
    const { varName, value } = item;
    if (typeof varName !== 'string' || varName.length < 1 || varName.length > 256 || varName in Object.prototype) return undefined;
    if (typeof value === 'string' && value.length > 10_000) return undefined;
    variables[varName] = value;
  }
  return { event: 'updateVariables', detail: { variables } };
}
