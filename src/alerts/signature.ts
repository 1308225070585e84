/**
 * The webhook's signature (docs/alerts.md "Signature"): the header
 * `Bankdata-Signature: t=<unix seconds>,v1=<hex>` where hex is HMAC-SHA256, keyed with the
 * webhook secret, of `${t}.${body}` (the exact bytes of the body). A receiver recomputes it,
 * compares in constant time and refuses a timestamp too far from its clock (replay).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'bankdata-signature';

export function signatureOf(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** The header's value for this body at this instant (unix seconds). */
export function signatureHeader(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${signatureOf(secret, timestamp, body)}`;
}

/**
 * True when the header signs `body` with `secret` and its timestamp is within `toleranceSeconds`
 * of `nowSeconds`: what a receiver checks (the tests' receiver uses it; docs/alerts.md shows it).
 */
export function verifySignature(
  secret: string,
  header: string,
  body: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const parts = new Map(
    header.split(',').map((part) => {
      const at = part.indexOf('=');
      return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
    }),
  );
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds || !/^[0-9a-f]{64}$/.test(v1)) return false;
  return timingSafeEqual(Buffer.from(signatureOf(secret, t, body), 'hex'), Buffer.from(v1, 'hex'));
}
