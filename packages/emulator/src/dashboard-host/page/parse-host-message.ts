import type { DashboardVariables, HostMessage } from '@embedded-dashboard/protocol';

/**
 * The page's copy of `parseHostMessage` from `@embedded-dashboard/protocol`: the page script
 * is inlined source text and cannot import, so this self-contained twin is inlined instead.
 * `parse-host-message.test.ts` holds it to the same answers as the original.
 */
export function pageParseHostMessage(data: unknown): HostMessage | undefined {
  const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const isVariableValue = (v: unknown): v is string | number | boolean | null =>
    v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
  if (!isRecord(data) || typeof data.event !== 'string' || !isRecord(data.detail)) return undefined;
  const d = data.detail;
  if (data.event === 'updateToken') {
    return typeof d.token === 'string' && d.token.length > 0 ? { event: 'updateToken', detail: { token: d.token } } : undefined;
  }
  if (data.event === 'updateVariables') {
    if (!isRecord(d.variables)) return undefined;
    const variables: DashboardVariables = {};
    for (const [name, value] of Object.entries(d.variables)) {
      if (!isVariableValue(value)) return undefined;
      variables[name] = value;
    }
    return { event: 'updateVariables', detail: { variables } };
  }
  return undefined;
}
