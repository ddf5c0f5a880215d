/** Dashboard ids: lowercase letters, digits and single dashes, at most 64 characters. */
const DASHBOARD_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_DASHBOARD_ID_LENGTH = 64;

/** Whether `id` has the shape of a dashboard id (known or not). */
export function isValidDashboardId(id: string): boolean {
  return id.length <= MAX_DASHBOARD_ID_LENGTH && DASHBOARD_ID.test(id);
}
