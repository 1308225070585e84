/**
 * Every code of the bank's API documentation is in the client's code table with its action, and
 * the mapping functions give each the class that action needs: the Data API's codes from
 * docs/bank-api.md §7.3 (`DATA_CODE_ACTIONS`, `toApiError`), the Payments API's from
 * docs/payments-contract.md §5.1 (`PAYMENT_CODE_ACTIONS`, `toPaymentsError`). Only the codes the
 * documentation gives a retry action are unavailable errors; no other code is retried blind.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../../src/api/api-errors';
import { DATA_CODE_ACTIONS, toApiError } from '../../src/api/map-api-error';
import { PAYMENT_CODE_ACTIONS, PaymentOutcomeUnknownError, toPaymentsError } from '../../src/api/payments';

const root = join(__dirname, '..', '..');

/** The rows of the first table under `heading` whose first cell names a code (or a range `X–Y`). */
function codeRows(file: string, heading: string, prefix: 'BDT' | 'BP'): Array<{ code: string; cells: string[] }> {
  const text = readFileSync(join(root, file), 'utf8');
  const start = text.indexOf(heading);
  if (start < 0) throw new Error(`${file}: no heading ${heading}`);
  const after = text.slice(start + heading.length);
  const end = after.search(/\n#{2,3} /);
  const section = end < 0 ? after : after.slice(0, end);
  const rows: Array<{ code: string; cells: string[] }> = [];
  const codePattern = new RegExp(`^(${prefix})(\\d{3})(?:[–-]${prefix}(\\d{3}))?$`);
  for (const line of section.split('\n')) {
    if (!line.startsWith('| ')) continue;
    const cells = line
      .slice(1, -1)
      .split(' | ')
      .map((c) => c.trim());
    const match = codePattern.exec(cells[0] ?? '');
    if (!match) continue;
    const from = Number(match[2]);
    const to = match[3] === undefined ? from : Number(match[3]);
    for (let n = from; n <= to; n++) rows.push({ code: `${prefix}${String(n).padStart(3, '0')}`, cells });
  }
  return rows;
}

const fact = (status: number, code: string) => ({
  status,
  code,
  message: 'server text',
  headers: {},
  path: '/v1/accounts/acc-1/transactions',
  requestId: 'req-1',
});

describe("the Data API's codes (docs/bank-api.md §7.3) in the client's table", () => {
  const rows = codeRows('docs/bank-api.md', '### 7.3 Every code: status, meaning, client action', 'BDT');

  it('R-ERR-5 every BDT code of §7.3 has its status and client action in DATA_CODE_ACTIONS, and no other', () => {
    expect(rows.length).toBeGreaterThan(50);
    for (const { code, cells } of rows) {
      const [, status, , action] = cells;
      expect(DATA_CODE_ACTIONS[code], code).toEqual({
        status: Number(status),
        kind: DATA_CODE_ACTIONS[code]?.kind,
        action,
      });
    }
    expect(Object.keys(DATA_CODE_ACTIONS).sort()).toEqual(rows.map((r) => r.code).sort());
  });

  it('R-ERR-5 toApiError gives each code the kind of its action; only BDT601–BDT604 are retried as unavailable', () => {
    for (const [code, entry] of Object.entries(DATA_CODE_ACTIONS)) {
      const error = toApiError({ ...fact(entry.status, code), kind: 'transactions' });
      expect(error.kind, code).toBe(entry.kind);
      expect(error.code, code).toBe(code);
      expect(error instanceof UnavailableError, code).toBe(/^BDT60[1-4]$/.test(code));
    }
  });
});

describe("the Payments API's codes (docs/payments-contract.md §5.1) in the client's table", () => {
  const rows = codeRows('docs/payments-contract.md', "### 5.1 Every code of the bank's API documentation", 'BP');

  it('R-PERR-1 every BP code of §5.1 has its status and action in PAYMENT_CODE_ACTIONS, and no other', () => {
    expect(rows.length).toBeGreaterThan(80);
    for (const { code, cells } of rows) {
      const [, status, , , action] = cells;
      expect(PAYMENT_CODE_ACTIONS[code], code).toMatchObject({
        status: Number(status),
        action: (action ?? '').replace(/`/g, ''),
      });
    }
    expect(Object.keys(PAYMENT_CODE_ACTIONS).sort()).toEqual(rows.map((r) => r.code).sort());
  });

  it('R-PERR-1 toPaymentsError gives each code its action; only BP601 and BP602 are retried as unavailable', () => {
    for (const [code, entry] of Object.entries(PAYMENT_CODE_ACTIONS)) {
      const error = toPaymentsError(fact(entry.status, code));
      expect(error.code, code).toBe(code);
      expect(error instanceof UnavailableError, code).toBe(code === 'BP601' || code === 'BP602');
      if (!(error instanceof UnavailableError)) expect((error as { action: string }).action, code).toBe(entry.action);
    }
  });

  it('R-PERR-2 BP903–BP905 (502): the outcome is unknown, GET the refund before retrying, never retried blind', () => {
    for (const code of ['BP903', 'BP904', 'BP905']) {
      const error = toPaymentsError(fact(502, code));
      expect(error).toBeInstanceOf(PaymentOutcomeUnknownError);
      expect(error).toMatchObject({ status: 502, code, action: 'get_refund_before_retrying' });
    }
    // A 502 with no code stays an unavailable service (no clear answer: docs/payments-contract.md §5).
    expect(toPaymentsError({ ...fact(502, 'x'), code: null })).toBeInstanceOf(UnavailableError);
  });
});
