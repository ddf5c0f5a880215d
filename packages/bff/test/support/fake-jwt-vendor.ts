import { EncryptJWT } from 'jose';
import type { ExploGenerateJwtInput, ExploGenerateJwtResponse, UpstreamApiName } from '@embedded-dashboard/protocol';
import { FakeUpstream } from './fixtures.js';

/**
 * The vendor's Customer API with `generate_jwt` (`FakeUpstream` for the customer calls): it mints
 * real embed tokens with the secret `key` at `clock`, counts each call, and fails or answers
 * something else on demand.
 */
export class FakeJwtVendor extends FakeUpstream {
  readonly api: UpstreamApiName = 'explo-customer';
  readonly jwtCalls: ExploGenerateJwtInput[] = [];
  failJwt: Error[] = [];
  answerJwt: string | undefined;
  jwtGate: Promise<void> | undefined;

  constructor(
    readonly key: Uint8Array,
    readonly clock: () => number,
  ) {
    super();
  }

  async generateJwt(input: ExploGenerateJwtInput): Promise<ExploGenerateJwtResponse> {
    this.jwtCalls.push(input);
    await this.jwtGate;
    const failure = this.failJwt.shift();
    if (failure !== undefined) throw failure;
    if (this.answerJwt !== undefined) return { success: 1, jwt: this.answerJwt };
    const seconds = Number(/^PT(\d+)S$/.exec(input.expiration ?? '')?.[1] ?? 86_400);
    const claims = {
      cst: input.provided_id,
      dsh: input.embed_id,
      exp: Math.floor(this.clock() / 1000) + seconds,
      ...(input.embed_origin && { iss: input.embed_origin }),
      // The fake's own record of the chart (the vendor's docs name no claim for it), so tests can tell tokens apart.
      ...(input.chart_id != null && { chart: input.chart_id }),
      ...(input.disable_editable_section_editing != null && { des: input.disable_editable_section_editing }),
    };
    const jwt = await new EncryptJWT(claims).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: input.key_id! }).encrypt(this.key);
    return { success: 1, jwt };
  }
}
