import type { Row } from '../lib/row.js';

export async function runBrowser(quick: boolean): Promise<Row[]> {
  void quick;
  return [];
}
