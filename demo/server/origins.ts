const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export const isLoopback = (host: string) => LOOPBACK_NAMES.has(host);

const hostInUrl = (host: string) => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);

/** Every origin a browser may use to reach a server listening on `host:port`. */
export function originsOf(host: string, port: number): string[] {
  const names = isLoopback(host) ? ['127.0.0.1', 'localhost'] : [host];
  return names.map((name) => `http://${hostInUrl(name)}:${port}`);
}

/**
 * The dashboard's URL template for a page the browser loaded from `pageUrl`: the emulator's
 * port under the *other* loopback name (127.0.0.1 ↔ localhost), so the iframe is cross-site as
 * it is in production, not just cross-origin. Other hosts keep their name; the port differs.
 */
export function dashboardSrcTemplate(pageUrl: URL, emulatorPort: number): string {
  const name = pageUrl.hostname === '127.0.0.1' ? 'localhost' : isLoopback(pageUrl.hostname) ? '127.0.0.1' : pageUrl.hostname;
  return `http://${hostInUrl(name)}:${emulatorPort}/iframe/{dashboard}`;
}
