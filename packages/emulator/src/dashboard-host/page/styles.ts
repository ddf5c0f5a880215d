/** The page's stylesheet, inlined under the response's CSP nonce. */
export const DASHBOARD_PAGE_CSS = `
:root { color-scheme: light; --ink: #1d2433; --muted: #5d6b82; --line: #e3e8f0; --panel: #ffffff; --bg: #f4f6fa;
  --accent: #3b5bdb; --accent-soft: rgba(59, 91, 219, 0.14); --good: #237032; --bad: #c92a2a; }
html, body { margin: 0; padding: 0; background: var(--bg); color: var(--ink);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
#app { padding: 20px 24px 16px; box-sizing: border-box; }
.placeholder { margin: 0; padding: 48px 0; font: inherit; text-align: center; color: var(--muted); }
.header { display: flex; align-items: flex-start; justify-content: space-between; gap: 16px; margin-bottom: 14px; }
.eyebrow { margin: 0; font-size: 12px; letter-spacing: .08em; text-transform: uppercase; color: var(--muted); font-weight: 600; }
.group-name { margin: 2px 0 0; font-size: 24px; font-weight: 700; overflow-wrap: anywhere; }
.env-tag { flex: none; padding: 3px 10px; border-radius: 999px; font-size: 12px; font-weight: 600; border: 1px solid currentColor; }
.env-tag[data-environment="Customer"] { color: var(--good); background: rgba(43, 138, 62, .08); }
.env-tag[data-environment="Testing"] { color: #945000; background: rgba(230, 119, 0, .1); }
.variables { margin-bottom: 16px; }
/* The row of chips is one height whatever it holds (no variables, many, inputs of any engine's own height), scrolling sideways
   when full: the layout drawn before the data has the loaded dashboard's height. */
.chips { list-style: none; display: flex; gap: 8px; margin: 0; padding: 0 0 10px; height: 28px; overflow: auto hidden; scrollbar-width: thin; }
.chip { flex: none; display: flex; align-items: center; height: 28px; }
.chip label { display: inline-flex; align-items: center; gap: 6px; height: 100%; box-sizing: border-box; padding: 0 4px 0 10px; border-radius: 999px;
  background: var(--panel); border: 1px solid var(--line); font-size: 12px; }
.chip.empty { color: var(--muted); font-size: 12px; }
.multi-select { display: inline-flex; align-items: center; gap: 8px; margin-top: 8px; font-size: 12px; }
.multi-select select { font: inherit; min-width: 6em; }
.filter-summary, .refreshed { color: var(--muted); font-size: 12px; }
.refreshed { margin: 2px 0 0; min-height: 1.45em; }
.chip-name { color: var(--muted); font-weight: 600; overflow-wrap: anywhere; }
.chip-input { height: 20px; box-sizing: border-box; border: 0; border-radius: 999px; padding: 0 8px; background: var(--accent-soft); color: var(--ink); font: inherit; }
.chip-input:focus { outline: 2px solid var(--accent); }
.kpis { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 12px; margin-bottom: 16px; }
.kpi { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; display: grid; gap: 2px; }
.kpi-label { font-size: 12px; color: var(--muted); }
.kpi-value { font-size: 22px; font-weight: 700; }
.trend { font-size: 12px; font-weight: 600; }
.trend.up { color: var(--good); }
.trend.down { color: var(--bad); }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(280px, 1fr)); gap: 12px; margin-bottom: 16px; }
.chart { margin: 0; background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px 6px; }
.chart-title { font-weight: 600; margin-bottom: 6px; }
.chart-svg { width: 100%; height: auto; display: block; }
.grid { stroke: var(--line); stroke-width: 1; }
.tick { fill: var(--muted); font-size: 10px; }
.bar { fill: var(--accent); }
.bar:hover { fill: #2f4ac0; }
.line { fill: none; stroke: var(--accent); stroke-width: 2.5; stroke-linejoin: round; }
.area { fill: var(--accent-soft); }
.dot { fill: #fff; stroke: var(--accent); stroke-width: 2; }
.toggle { font: inherit; font-weight: 600; color: var(--accent); background: var(--panel); border: 1px solid var(--line);
  border-radius: 8px; padding: 6px 12px; cursor: pointer; }
.toggle:hover { border-color: var(--accent); }
.details-panel { margin-top: 12px; background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; }
.details-panel[hidden] { display: none; }
.details-title { margin: 0 0 8px; font-size: 15px; }
.table { width: 100%; border-collapse: collapse; font-size: 13px; }
.table th { text-align: left; color: var(--muted); font-weight: 600; border-bottom: 1px solid var(--line); padding: 6px 8px; }
.table td { border-bottom: 1px solid var(--line); padding: 6px 8px; overflow-wrap: anywhere; }
.table td.num { text-align: right; font-variant-numeric: tabular-nums; }
/* The layout before the data: its sections and labels, the group's name and values as blocks. */
.skeleton :is(.group-name, .env-tag, .kpi-value, .trend, .filter-summary) { color: transparent; background: var(--line); border-color: transparent; border-radius: 6px; }
.footer { display: flex; justify-content: space-between; gap: 12px; margin-top: 14px; color: var(--muted); font-size: 12px; }
body[data-state="expired"] .status, body[data-state="error"] .status, body[data-state="blocked"] .status { color: var(--bad); font-weight: 600; }
`;
