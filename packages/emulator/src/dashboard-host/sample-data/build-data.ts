import type { DashboardData } from '../page/dashboard-data.js';
import type { DashboardGroupView } from '../options.js';
import { SAMPLE_DASHBOARD_CONTENT } from './sample-dashboards.js';
import { hashSeed, seededRandom } from './seeded-random.js';
import { propertiesToVariables } from './variables.js';

/**
 * The data of `dashboardId` as `group` sees it: the same group always gets the same numbers,
 * another group gets others. `undefined` for an unknown dashboard.
 */
export function buildDashboardData(dashboardId: string, group: DashboardGroupView): DashboardData | undefined {
  const dashboard = SAMPLE_DASHBOARD_CONTENT.get(dashboardId);
  if (!dashboard) return undefined;
  const random = seededRandom(hashSeed(`${group.providedId}\u0000${dashboardId}`));
  return {
    dashboardId,
    title: dashboard.title,
    group: { name: group.name, providedId: group.providedId, environment: group.environment },
    jsEventButton: dashboard.jsEventButton,
    variables: propertiesToVariables(group.properties),
    ...dashboard.build(random),
  };
}
