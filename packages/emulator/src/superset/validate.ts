/**
 * `POST /api/v1/security/guest_token/`'s body as Superset 6.1.0 reads it (superset/security/api.py
 * `GuestTokenCreateSchema`, marshmallow, unknown fields dropped): the same error object for the same
 * mistakes, and the one quirk kept because callers meet it: a body without `user` passes the schema
 * and then fails in the view with a 500 ("Fatal error").
 */

type Errors = Record<string, unknown>;
export type GuestTokenBody = {
  user: Record<string, string>;
  resources: { type: 'dashboard'; id: string }[];
  rls: { clause: string; dataset?: number }[];
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const INVALID = ['Invalid input type.'];
const MISSING = ['Missing data for required field.'];
const NULL = ['Field may not be null.'];

function string(value: unknown): string[] | undefined {
  if (value === null) return NULL;
  return typeof value === 'string' ? undefined : ['Not a valid string.'];
}

/** marshmallow's Integer (not strict): an integer, or text or a float that is one. */
function integer(value: unknown): { ok: true; value: number } | { ok: false; errors: string[] } {
  if (value === null) return { ok: false, errors: NULL };
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (typeof value === 'boolean' || !Number.isInteger(number) || !Number.isSafeInteger(number)) return { ok: false, errors: ['Not a valid integer.'] };
  return { ok: true, value: number };
}

function list<T>(
  value: unknown,
  item: (entry: unknown) => { ok: true; value: T } | { ok: false; errors: unknown },
): { ok: true; value: T[] } | { ok: false; errors: unknown } {
  if (value === null) return { ok: false, errors: NULL };
  if (!Array.isArray(value)) return { ok: false, errors: ['Not a valid list.'] };
  const errors: Errors = {};
  const items: T[] = [];
  value.forEach((entry, index) => {
    const result = item(entry);
    if (result.ok) items.push(result.value);
    else errors[String(index)] = result.errors;
  });
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value: items };
}

export function validateGuestTokenBody(value: unknown): { ok: true; value: GuestTokenBody } | { ok: false; status: 400 | 500; errors?: unknown } {
  if (!isObject(value)) return { ok: false, status: 400, errors: { _schema: INVALID } };
  const errors: Errors = {};
  const user: Record<string, string> = {};
  if ('user' in value) {
    if (value.user === null) errors.user = NULL;
    else if (!isObject(value.user)) errors.user = { _schema: INVALID };
    else {
      const userErrors: Errors = {};
      for (const field of ['username', 'first_name', 'last_name']) {
        if (!(field in value.user)) continue;
        const problem = string(value.user[field]);
        if (problem) userErrors[field] = problem;
        else user[field] = value.user[field] as string;
      }
      if (Object.keys(userErrors).length > 0) errors.user = userErrors;
    }
  }
  const resources = !('resources' in value)
    ? ({ ok: false, errors: MISSING } as const)
    : list(value.resources, (entry) => {
        if (!isObject(entry)) return { ok: false, errors: { _schema: INVALID } };
        const entryErrors: Errors = {};
        if (!('type' in entry)) entryErrors.type = MISSING;
        else if (entry.type !== 'dashboard') entryErrors.type = entry.type === null ? NULL : ['Must be one of: dashboard.'];
        if (!('id' in entry)) entryErrors.id = MISSING;
        else if (string(entry.id)) entryErrors.id = string(entry.id);
        return Object.keys(entryErrors).length > 0
          ? { ok: false, errors: entryErrors }
          : { ok: true, value: { type: 'dashboard' as const, id: entry.id as string } };
      });
  if (!resources.ok) errors.resources = resources.errors;
  const rls = !('rls' in value)
    ? ({ ok: false, errors: MISSING } as const)
    : list(value.rls, (entry) => {
        if (!isObject(entry)) return { ok: false, errors: { _schema: INVALID } };
        const entryErrors: Errors = {};
        const rule: { clause: string; dataset?: number } = { clause: '' };
        if (!('clause' in entry)) entryErrors.clause = MISSING;
        else if (string(entry.clause)) entryErrors.clause = string(entry.clause);
        else rule.clause = entry.clause as string;
        if ('dataset' in entry) {
          const dataset = integer(entry.dataset);
          if (dataset.ok) rule.dataset = dataset.value;
          else entryErrors.dataset = dataset.errors;
        }
        return Object.keys(entryErrors).length > 0 ? { ok: false, errors: entryErrors } : { ok: true, value: rule };
      });
  if (!rls.ok) errors.rls = rls.errors;
  if (Object.keys(errors).length > 0) return { ok: false, status: 400, errors };
  if (!('user' in value)) return { ok: false, status: 500 };
  return {
    ok: true,
    value: { user, resources: (resources as { value: GuestTokenBody['resources'] }).value, rls: (rls as { value: GuestTokenBody['rls'] }).value },
  };
}
