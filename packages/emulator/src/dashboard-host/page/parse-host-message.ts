import type { DashboardVariables, HostMessage } from '@embedded-dashboard/protocol';

/**
 * The page's copy of `parseHostMessage` from `@embedded-dashboard/protocol`: the page script
 * is inlined source text and cannot import, so this self-contained twin is inlined instead, with
 * the protocol's own `variablesProblem` and limits table handed in (`variablesProblem`).
 * `parse-host-message.test.ts` holds it to the same answers as the original.
 */
export function pageParseHostMessage(data: unknown, variablesProblem: (variables: unknown) => string | undefined): HostMessage | undefined {
  const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isRecord(data) || typeof data.event !== 'string' || !isRecord(data.detail)) return undefined;
  const d = data.detail;
  if (data.event === 'updateToken') {
    return typeof d.token === 'string' && d.token.length > 0 ? { event: 'updateToken', detail: { token: d.token } } : undefined;
  }
  if (data.event === 'updateVariables') {
    // Over a limit: the whole message is ignored, never half applied.
    if (variablesProblem(d.variables)) return undefined;
    return { event: 'updateVariables', detail: { variables: d.variables as DashboardVariables } };
  }
  return undefined;
}
