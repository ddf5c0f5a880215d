import type { PageConfig } from './page-inputs.js';
import { dashboardPageScript } from './inline-script.js';
import { DASHBOARD_PAGE_CSS } from './styles.js';

/** Escapes text for HTML element content and double-quoted attributes. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The dashboard page: one document, its CSS and script inline under `nonce`. */
export function dashboardPageHtml(title: string, config: PageConfig, nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style nonce="${escapeHtml(nonce)}">${DASHBOARD_PAGE_CSS}</style>
</head>
<body data-state="loading" data-token-generation="0">
<main id="app">
<div id="dashboard" aria-live="polite"><h1 class="placeholder">Loading ${escapeHtml(title)}…</h1></div>
<footer class="footer"><span id="status" class="status" role="status">Loading…</span><span>Emulated dashboard host</span></footer>
</main>
<script nonce="${escapeHtml(nonce)}">${dashboardPageScript(config)}</script>
</body>
</html>
`;
}

/** A small self-contained error page (unknown dashboard, bad id). */
export function errorPageHtml(heading: string, message: string, nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(heading)}</title>
<style nonce="${escapeHtml(nonce)}">body{font:14px system-ui,sans-serif;color:#1d2433;background:#f4f6fa;margin:0;padding:32px}h1{font-size:20px;margin:0 0 8px}</style>
</head>
<body data-state="error"><h1>${escapeHtml(heading)}</h1><p>${escapeHtml(message)}</p></body>
</html>
`;
}
