/**
 * Payments faults, drawn from the payments PRNG, one draw per payment creation. BP601–603 and
 * BP709 strike before anything is made; http500 and drop strike after the payment exists, so a
 * client must find out what happened before paying again.
 */
import type { DateTime } from 'luxon';
import { DropConnection, drawWeighted, retryAfter } from '../faults';
import { ApiError } from '../http-reply';
import type { EmulatorSettings } from '../settings';
import type { Random } from '../server-random';
import { PAYMENT_FAULT_KINDS, type PaymentsSettings } from './types';

export type PaymentFaultKind = (typeof PAYMENT_FAULT_KINDS)[number];

export function drawPaymentFault(random: Random, settings: PaymentsSettings): PaymentFaultKind | null {
  return drawWeighted(random, PAYMENT_FAULT_KINDS, settings.faults);
}

export function isBeforeEffect(kind: PaymentFaultKind): boolean {
  return kind !== 'http500' && kind !== 'drop';
}

const MESSAGES: Record<PaymentFaultKind, string> = {
  bp601: 'Bank service is unavailable',
  bp602: 'Service temporarily unavailable',
  bp603: 'Bank refused the consent; no payment was sent',
  bp709: 'The consent was changed by a concurrent request',
  http500: 'Internal server error',
  drop: 'connection dropped',
};

export class PaymentFaultError extends ApiError {
  constructor(
    status: number,
    message: string,
    readonly fault: PaymentFaultKind,
    code?: string,
    headers: Record<string, string> = {},
  ) {
    super(status, message, code, headers);
  }
}

/** BP601–603 answer 503 with Retry-After (BP602 always has one); BP709 409; http500 500; drop destroys the socket. */
export function paymentFaultError(
  kind: PaymentFaultKind,
  settings: PaymentsSettings,
  data: EmulatorSettings,
  now: DateTime,
): Error {
  if (kind === 'drop') return new DropConnection();
  if (kind === 'http500') return new PaymentFaultError(500, MESSAGES.http500, kind);
  if (kind === 'bp709') return new PaymentFaultError(409, MESSAGES.bp709, kind, 'BP709');
  const seconds = settings.retryAfterSeconds ?? (kind === 'bp602' ? 1 : null);
  const headers: Record<string, string> = seconds === null ? {} : { 'retry-after': retryAfter(seconds, data, now) };
  return new PaymentFaultError(503, MESSAGES[kind], kind, kind.toUpperCase(), headers);
}
