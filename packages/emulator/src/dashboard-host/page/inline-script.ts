import { variablesProblem } from '@embedded-dashboard/protocol';
import { createBrowserEnvironment } from './browser-environment.js';
import { runDashboardPage } from './frame-script.js';
import type { PageConfig } from './page-inputs.js';
import { matchesOrigin, resolveParentOrigin } from './origin-match.js';
import { pageParseHostMessage } from './parse-host-message.js';
import { renderDashboard } from './render.js';
import { fromVendorMessage, toVendorMessage } from './vendor-messages.js';

/**
 * JSON that is safe inside a `<script>` element: no `</script>`, no `<!--`, and no line
 * separators that older parsers treat as line ends.
 */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * The page's whole script: the type-checked page modules inlined as their own source text
 * (they are written to be self-contained) and called with the baked-in configuration.
 */
export function dashboardPageScript(config: PageConfig): string {
  return [
    '"use strict";',
    `(${runDashboardPage.toString()})(`,
    `${scriptSafeJson(config)},`,
    `(${createBrowserEnvironment.toString()})(window),`,
    '{',
    `parseHostMessage: ${pageParseHostMessage.toString()},`,
    `variablesProblem: ${variablesProblem.toString()},`,
    `toVendorMessage: ${toVendorMessage.toString()},`,
    `fromVendorMessage: ${fromVendorMessage.toString()},`,
    `matchesOrigin: ${matchesOrigin.toString()},`,
    `resolveParentOrigin: ${resolveParentOrigin.toString()},`,
    `renderDashboard: ${renderDashboard.toString()},`,
    '});',
  ].join('\n');
}
