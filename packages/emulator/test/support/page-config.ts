/**
 * The configuration a dashboard page bakes into its script (`dashboardPageScript`: the JSON
 * passed to the page function, escaped by `scriptSafeJson`), read back from the page's HTML.
 * Shared by the emulator's own tests only.
 */
export const pageConfigOf = (html: string): Record<string, unknown> =>
  JSON.parse(
    /\)\(\n(\{.*\}),\n/
      .exec(html)![1]!
      .replace(/\\u003c/g, '<')
      .replace(/\\u003e/g, '>')
      .replace(/\\u0026/g, '&'),
  ) as Record<string, unknown>;
