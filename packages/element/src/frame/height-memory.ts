import { MAX_DASHBOARD_HEIGHT, MIN_DASHBOARD_HEIGHT } from '@embedded-dashboard/protocol';

/** The sessionStorage key holding every remembered height: `[[dashboardKey, height], …]`, newest last. */
export const HEIGHT_MEMORY_KEY = 'embedded-dashboard:heights';
/** Dashboards remembered per page session; the least recently reported is forgotten first. */
export const MAX_REMEMBERED_HEIGHTS = 50;
/** A longer dashboard key (dashboard and chart id) is not remembered. */
const MAX_KEY_LENGTH = 400;

type Entry = [key: string, height: number];

const isEntry = (entry: unknown): entry is Entry =>
  Array.isArray(entry) &&
  typeof entry[0] === 'string' &&
  entry[0].length <= MAX_KEY_LENGTH &&
  Number.isInteger(entry[1]) &&
  (entry[1] as number) >= MIN_DASHBOARD_HEIGHT &&
  (entry[1] as number) <= MAX_DASHBOARD_HEIGHT;

/** What the page session holds, checked entry by entry: garbage, or storage that throws (blocked, sandboxed), is none. */
function read(): Entry[] {
  try {
    const stored: unknown = JSON.parse(sessionStorage.getItem(HEIGHT_MEMORY_KEY) ?? '[]');
    return Array.isArray(stored) ? stored.filter(isEntry).slice(-MAX_REMEMBERED_HEIGHTS) : [];
  } catch {
    return [];
  }
}

/** The height a dashboard last reported in this page session (CSS px), or `undefined`. */
export const recallHeight = (key: string): number | undefined => read().find((entry) => entry[0] === key)?.[1];

/** Remembers a dashboard's reported height for a repeat view in this page session; storage that fails is skipped. */
export function rememberHeight(key: string, height: number): void {
  const entry: Entry = [key, height];
  if (!isEntry(entry)) return;
  const entries = read().filter((other) => other[0] !== key);
  entries.push(entry);
  try {
    sessionStorage.setItem(HEIGHT_MEMORY_KEY, JSON.stringify(entries.slice(-MAX_REMEMBERED_HEIGHTS)));
  } catch {
    // Full, blocked or sandboxed storage: the next view reserves the default space instead.
  }
}
