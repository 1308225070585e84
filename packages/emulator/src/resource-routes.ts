/**
 * Resource endpoints (docs/bank-api.md §6.1–§6.8) over the world at the data clock's instant.
 */
import { applyDataFaults } from './data-faults';
import { DateTime } from 'luxon';
import { checkInsideConsentWindow } from '@bankdata/core/consent-rules';
import { creditDebitFilter } from '@bankdata/core/endpoint-access';
import { toInstant } from '@bankdata/core/nz-time';
import { negotiateContentType, statementFileName } from './accept';
import type { EmulatorContext, RequestInfo } from './emulator-context';
import { ApiError, jsonReply, type Reply } from './http-reply';
import { buildUrl, paginate, readPage } from './paging';
import {
  checkDateRules,
  checkUpstream,
  guardResource,
  historyFloorMs,
  readDateParam,
  requireConsentIdParam,
  visibleStatements,
} from './resource-guard';
import { trimAccount, trimStatement, trimTransaction } from './trim';
import type { StatementFileType } from '@bankdata/core/schemas';

function envelope(member: string, data: unknown, links: { Self: string; Next?: string }, meta: object): Reply {
  return jsonReply(200, { Data: { [member]: data }, Links: links, Meta: meta });
}

function selfUrl(rq: RequestInfo, consentId: string): string {
  return buildUrl(rq.origin, rq.path, [['consent_id', consentId]]);
}

export function handleAccounts(ctx: EmulatorContext, rq: RequestInfo): Reply {
  const consentId = requireConsentIdParam(rq);
  const page = readPage(rq.query.get('page'), ctx.clock.nowMs());
  const { consent } = guardResource(ctx, rq, 'accounts', consentId);
  checkUpstream(ctx, consent);
  const accounts = consent.accountKeys.flatMap((key) => {
    const account = ctx.world.accounts.get(key);
    return account ? [trimAccount(account.account, consent.permissions)] : [];
  });
  const atMs = page.atMs ?? ctx.clock.nowMs();
  const result = paginate(accounts, page, atMs, ctx.settings.accountsPageSize, (p) =>
    buildUrl(rq.origin, rq.path, [
      ['consent_id', consentId],
      ['page', p],
    ]),
  );
  return envelope('Account', result.items, result.links, result.meta);
}

export function handleAccount(ctx: EmulatorContext, rq: RequestInfo, accountId: string): Reply {
  const consentId = requireConsentIdParam(rq);
  const { consent, account } = guardResource(ctx, rq, 'account', consentId, { accountId });
  checkUpstream(ctx, consent);
  return envelope('Account', trimAccount(account.account, consent.permissions), { Self: selfUrl(rq, consentId) }, {});
}

export function handleBalances(ctx: EmulatorContext, rq: RequestInfo, accountId: string): Reply {
  const consentId = requireConsentIdParam(rq);
  const { consent } = guardResource(ctx, rq, 'balances', consentId, { accountId });
  checkUpstream(ctx, consent);
  const balances = ctx.world.balancesAt(consent.bank, accountId, ctx.clock.now());
  return envelope('Balance', balances, { Self: selfUrl(rq, consentId) }, {});
}

export function handleTransactions(ctx: EmulatorContext, rq: RequestInfo, accountId: string): Reply {
  const consentId = requireConsentIdParam(rq);
  const from = readDateParam(rq, 'fromBookingDateTime', true);
  const to = readDateParam(rq, 'toBookingDateTime', true);
  const page = readPage(rq.query.get('page'), ctx.clock.nowMs());
  checkDateRules(ctx, from.at, to.at, true);
  const { consent, meta } = guardResource(ctx, rq, 'transactions', consentId, { accountId });
  // Step 10 (BDT236): the range must lie inside the consent window, as instants.
  const window = {
    start: toInstant(consent.start_date_time),
    ...(consent.end_date_time ? { end: toInstant(consent.end_date_time) } : {}),
  };
  const outside = checkInsideConsentWindow(from.at, to.at, window);
  if (outside) throw new ApiError(400, outside.message, outside.code);

  const atMs = page.atMs ?? ctx.clock.nowMs();
  const at = DateTime.fromMillis(atMs, { zone: 'utc' });
  const fromMs = from.at.toMillis();
  const toMs = to.at.toMillis();
  const floor = historyFloorMs(meta, at) ?? -Infinity;
  const direction = creditDebitFilter(consent.permissions);
  // The window's rows only, unless a data fault is set on the account: a balance skip shifts the
  // rows after its target, which may lie before the window.
  const faulted = ctx.settings.dataFaults.some((f) => f.bank === consent.bank && f.accountId === accountId);
  const visible = ctx.world.transactionsAt(consent.bank, accountId, at, faulted ? undefined : { fromMs, toMs });
  const served = applyDataFaults(ctx.settings.dataFaults, consent.bank, accountId, visible);
  const rows = served.filter((t) => {
    const booked = Date.parse(t.BookingDateTime);
    return (
      booked >= fromMs &&
      booked <= toMs &&
      booked >= floor &&
      (direction === null || t.CreditDebitIndicator === direction)
    );
  });
  checkUpstream(ctx, consent, () => {
    // BDT263 only on the first page (docs/bank-api.md §1.4 rule 6): a Next is always served.
    const max = ctx.settings.maxResultSize[consent.bank];
    if (page.atMs === null && rows.length > max) {
      throw new ApiError(422, `Result too large for one request: ${rows.length} records over ${max}`, 'BDT263');
    }
  });
  const result = paginate(rows, page, atMs, ctx.settings.pageSize, (p) =>
    buildUrl(rq.origin, rq.path, [
      ['consent_id', consentId],
      ['fromBookingDateTime', from.value],
      ['toBookingDateTime', to.value],
      ['page', p],
    ]),
  );
  const items = result.items.map((t) => trimTransaction(t, consent.permissions));
  return envelope('Transaction', items, result.links, result.meta);
}

export function handleStatements(ctx: EmulatorContext, rq: RequestInfo, accountId: string): Reply {
  const consentId = requireConsentIdParam(rq);
  const from = readDateParam(rq, 'fromStatementDateTime', false);
  const to = readDateParam(rq, 'toStatementDateTime', false);
  const page = readPage(rq.query.get('page'), ctx.clock.nowMs());
  // Statement filters are outside the consent-window and today rules (docs/bank-api.md §6.5): BDT237 only.
  if (from && to) checkDateRules(ctx, from.at, to.at, false);
  const { consent, meta } = guardResource(ctx, rq, 'statements', consentId, { accountId });
  checkUpstream(ctx, consent);
  const atMs = page.atMs ?? ctx.clock.nowMs();
  const at = DateTime.fromMillis(atMs, { zone: 'utc' });
  const statements = visibleStatements(ctx, consent.bank, accountId, at, meta).filter(
    (s) =>
      (!from || Date.parse(s.StartDateTime) >= from.at.toMillis()) &&
      (!to || Date.parse(s.EndDateTime) <= to.at.toMillis()),
  );
  const result = paginate(statements, page, atMs, ctx.settings.statementsPageSize ?? ctx.settings.pageSize, (p) =>
    buildUrl(rq.origin, rq.path, [
      ['consent_id', consentId],
      ['fromStatementDateTime', from?.value],
      ['toStatementDateTime', to?.value],
      ['page', p],
    ]),
  );
  const items = result.items.map((s) => trimStatement(s, consent.permissions));
  return envelope('Statement', items, result.links, result.meta);
}

export function handleStatement(ctx: EmulatorContext, rq: RequestInfo, accountId: string, statementId: string): Reply {
  const consentId = requireConsentIdParam(rq);
  const { consent, statement } = guardResource(ctx, rq, 'statement', consentId, { accountId, statementId });
  checkUpstream(ctx, consent);
  return envelope('Statement', trimStatement(statement, consent.permissions), { Self: selfUrl(rq, consentId) }, {});
}

export function handleStatementFile(
  ctx: EmulatorContext,
  rq: RequestInfo,
  accountId: string,
  statementId: string,
): Reply {
  const consentId = requireConsentIdParam(rq);
  const { consent, meta } = guardResource(ctx, rq, 'statement_file', consentId, { accountId, statementId });
  const contentType = negotiateContentType(rq.req.headers.accept, meta.features.statement_file_content_types);
  if (contentType === null) {
    throw new ApiError(
      406,
      `No acceptable statement file type; available: ${meta.features.statement_file_content_types.join(', ')}`,
    );
  }
  checkUpstream(ctx, consent);
  const bytes = ctx.world.statementFile(consent.bank, accountId, statementId, contentType as StatementFileType);
  if (!bytes) throw new ApiError(404, `Statement file not found: ${statementId}`);
  return {
    status: 200,
    headers: {
      'content-type': contentType === 'text/csv' ? 'text/csv; charset=utf-8' : contentType,
      'content-length': String(bytes.length),
      'content-disposition': `attachment; filename="${statementFileName(statementId, contentType)}"`,
    },
    body: bytes,
  };
}

export function handleParty(ctx: EmulatorContext, rq: RequestInfo): Reply {
  const consentId = requireConsentIdParam(rq);
  const { consent } = guardResource(ctx, rq, 'party', consentId);
  checkUpstream(ctx, consent);
  const customer = ctx.world.customers.find((c) => c.customerId === consent.customerId);
  if (!customer) throw new ApiError(404, 'Party not found');
  return envelope('Party', customer.party, { Self: selfUrl(rq, consentId) }, {});
}

export function handleAccountParty(ctx: EmulatorContext, rq: RequestInfo, accountId: string): Reply {
  const consentId = requireConsentIdParam(rq);
  const { consent, account } = guardResource(ctx, rq, 'account_party', consentId, { accountId });
  checkUpstream(ctx, consent);
  return envelope('Party', account.accountParty, { Self: selfUrl(rq, consentId) }, {});
}
