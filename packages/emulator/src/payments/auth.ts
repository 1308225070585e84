/**
 * Payments API clients and tokens (docs/payments-contract.md §2): the Payments API has its own token
 * endpoint, credentials and scopes; a Data API token is not valid here, nor the other way round.
 * Tokens expire by the shared data clock.
 */
import { PAYMENTS_SCOPES, type PaymentsScope } from '@bankdata/core/payment-schemas';
import { ClientRegistry, type RegisteredClient, type TokenGrant } from '../auth';

export type PaymentsClient = RegisteredClient<PaymentsScope>;
export type PaymentsToken = TokenGrant<PaymentsScope>;

export class PaymentsAuth extends ClientRegistry<PaymentsScope, PaymentsToken> {
  constructor() {
    super(PAYMENTS_SCOPES);
  }

  issue(client: PaymentsClient, nowMs: number, lifetimeSeconds: number): string {
    return this.keep(this.grantFor(client, nowMs, lifetimeSeconds));
  }

  /** Whether two clients belong to one organisation (a consent or payment of one is the other's too). */
  sameOrganisation(a: string, b: string): boolean {
    const first = this.client(a);
    return first !== undefined && first.organisation === this.client(b)?.organisation;
  }
}
