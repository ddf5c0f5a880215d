import type { Row } from '../lib/row.js';

export async function runUpstream(quick: boolean): Promise<Row[]> {
  void quick;
  return [];
}
