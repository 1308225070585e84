/**
 * Which candidate pairs are own-account transfers (docs/transfers.md): the pure rules, no SQL.
 * A candidate (a booked debit and a booked credit of another account, same currency, opposite
 * amounts in minor units, within `maxDays` NZ days: store/transfers.ts) is kept only when both
 * accounts are one owner's (the same consent, the same account party at one bank, or a group the
 * user names) and no evidence the bank gives disagrees (a counterparty account number naming
 * another account, a reference that differs). Each kept pair is scored; a pair is linked only
 * when each side is the other's unique best candidate. Pairs tied at the top for a side are
 * ambiguous: listed, never chosen.
 */
import { sameAccountNumber } from '@bankdata/core/account-number';
import { BANKS } from '@bankdata/core/schemas';
import { MAX_TRANSFER_DAYS } from '../config/schema';
import type { TransferAccount, TransferCandidate, TransferLinkInput, TransferReferences } from '../store';

export interface TransferRules {
  /** Config `transfers.maxDays`: the most whole NZ days between the two booking dates. */
  maxDays: number;
  /** Config `transfers.groups`: group name → accounts (account numbers or BANK/ACCOUNT_ID). */
  groups: Readonly<Record<string, readonly string[]>>;
}

export const DEFAULT_TRANSFER_RULES: TransferRules = { maxDays: 3, groups: {} };

/** What a kept candidate's score is made of (docs/transfers.md "Score"). */
export const SCORE_WEIGHTS = { counterpartySide: 1000, reference: 100, closeness: 1 } as const;

export interface Evidence {
  sameConsent: boolean;
  sameParty: boolean;
  ownerGroup: string | null;
  /** Sides naming the other account as their counterparty: 0, 1 or 2. */
  counterpartySides: number;
  referenceAgrees: boolean;
  daysApart: number;
  score: number;
}

const accountKey = (bank: string, accountId: string) => `${bank}/${accountId}`;

/**
 * Each configured group as the set of accounts it names, in the order of the groups' names (the
 * first group naming both accounts is the pair's `owner_group`): an entry `BANK/ACCOUNT_ID` (a bank
 * the API names, any case) names that account; any other entry is an account number, naming every
 * account whose number is the same (core's account-number.ts: "12 3456 0123456 00" and
 * "12-3456-0123456-000" are one number).
 */
export function resolveGroups(
  groups: TransferRules['groups'],
  accounts: readonly TransferAccount[],
): Map<string, Set<string>> {
  const resolved = new Map<string, Set<string>>();
  const byName = Object.entries(groups).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [name, entries] of byName) {
    const members = new Set<string>();
    for (const entry of entries) {
      const slash = entry.indexOf('/');
      const bank = slash > 0 ? BANKS.find((b) => b.toLowerCase() === entry.slice(0, slash).toLowerCase()) : undefined;
      if (bank !== undefined) {
        members.add(accountKey(bank, entry.slice(slash + 1)));
        continue;
      }
      for (const a of accounts) {
        if (a.identification !== null && sameAccountNumber(entry, a.identification) === true)
          members.add(accountKey(a.bank, a.accountId));
      }
    }
    resolved.set(name, members);
  }
  return resolved;
}

/** Configured entries that name no stored account (a typo, or an account not synced yet). */
export function unknownGroupEntries(
  groups: TransferRules['groups'],
  accounts: readonly TransferAccount[],
): { group: string; entry: string }[] {
  const unknown: { group: string; entry: string }[] = [];
  for (const [group, entries] of Object.entries(groups)) {
    for (const entry of entries) {
      const members = resolveGroups({ [group]: [entry] }, accounts).get(group);
      const held = [...(members ?? [])].some((key) => accounts.some((a) => accountKey(a.bank, a.accountId) === key));
      if (!held) unknown.push({ group, entry });
    }
  }
  return unknown;
}

type Agreement = 'agree' | 'disagree' | 'unknown';

/** Whether a side's counterparty account number names the other account, where both are given. */
function counterpartyAgreement(named: string | null, other: TransferAccount): Agreement {
  if (named === null || other.identification === null) return 'unknown';
  const same = sameAccountNumber(named, other.identification);
  return same === null ? 'unknown' : same ? 'agree' : 'disagree';
}

const normalRef = (value: string | null): string | null => {
  const text = value?.trim().toUpperCase() ?? '';
  return text === '' ? null : text;
};

/** The references both sides carry, field by field (trimmed, any case): any difference disagrees. */
function referenceAgreement(debit: TransferReferences, credit: TransferReferences): Agreement {
  let compared = 0;
  for (const field of Object.keys(debit) as (keyof TransferReferences)[]) {
    const a = normalRef(debit[field]);
    const b = normalRef(credit[field]);
    if (a === null || b === null) continue;
    if (a !== b) return 'disagree';
    compared += 1;
  }
  return compared > 0 ? 'agree' : 'unknown';
}

/**
 * The evidence of one candidate, or null when it must not pair: the accounts are not shown to be
 * one owner's, or a counterparty account number or a reference the bank gives disagrees.
 */
export function evidenceOf(
  candidate: TransferCandidate,
  accounts: ReadonlyMap<string, TransferAccount>,
  groups: ReadonlyMap<string, ReadonlySet<string>>,
  maxDays: number,
): Evidence | null {
  const debitKey = accountKey(candidate.debit.bank, candidate.debit.accountId);
  const creditKey = accountKey(candidate.credit.bank, candidate.credit.accountId);
  const from = accounts.get(debitKey);
  const to = accounts.get(creditKey);
  if (from === undefined || to === undefined) return null;
  if (candidate.daysApart > maxDays) return null;
  // One consent read both accounts (docs/transfers.md rule 6), whichever of its readers owns each row.
  const sameConsent = from.consentIds.some((id) => to.consentIds.includes(id));
  const sameParty = from.bank === to.bank && from.partyId !== null && from.partyId === to.partyId;
  let ownerGroup: string | null = null;
  // In the groups' name order (resolveGroups): the first naming both accounts.
  for (const [name, members] of groups) {
    if (members.has(debitKey) && members.has(creditKey)) {
      ownerGroup = name;
      break;
    }
  }
  if (!sameConsent && !sameParty && ownerGroup === null) return null;
  const sides = [
    counterpartyAgreement(candidate.debit.counterpartyAccount, to),
    counterpartyAgreement(candidate.credit.counterpartyAccount, from),
  ];
  if (sides.includes('disagree')) return null;
  const reference = referenceAgreement(candidate.debit.references, candidate.credit.references);
  if (reference === 'disagree') return null;
  const counterpartySides = sides.filter((s) => s === 'agree').length;
  const referenceAgrees = reference === 'agree';
  const score =
    SCORE_WEIGHTS.counterpartySide * counterpartySides +
    SCORE_WEIGHTS.reference * (referenceAgrees ? 1 : 0) +
    SCORE_WEIGHTS.closeness * (MAX_TRANSFER_DAYS - candidate.daysApart);
  return {
    sameConsent,
    sameParty,
    ownerGroup,
    counterpartySides,
    referenceAgrees,
    daysApart: candidate.daysApart,
    score,
  };
}

const sideKey = (side: TransferCandidate['debit']) => `${side.bank}/${side.accountId}/${side.transactionId}`;

/**
 * The links of a matching: each kept candidate scored; linked when it is the unique best of its
 * debit and the unique best of its credit; ambiguous when it shares the best score of its debit or
 * of its credit with another candidate. Candidates outranked on either side are dropped.
 */
export function matchTransfers(
  candidates: readonly TransferCandidate[],
  accounts: readonly TransferAccount[],
  rules: TransferRules,
): TransferLinkInput[] {
  const byKey = new Map(accounts.map((a) => [accountKey(a.bank, a.accountId), a]));
  const groups = resolveGroups(rules.groups, accounts);
  const kept: { candidate: TransferCandidate; evidence: Evidence }[] = [];
  for (const candidate of candidates) {
    const evidence = evidenceOf(candidate, byKey, groups, rules.maxDays);
    if (evidence !== null) kept.push({ candidate, evidence });
  }
  const best = new Map<string, { score: number; count: number }>();
  const note = (key: string, score: number) => {
    const current = best.get(key);
    if (current === undefined || score > current.score) best.set(key, { score, count: 1 });
    else if (score === current.score) current.count += 1;
  };
  for (const { candidate, evidence } of kept) {
    note(`D ${sideKey(candidate.debit)}`, evidence.score);
    note(`C ${sideKey(candidate.credit)}`, evidence.score);
  }
  const links: TransferLinkInput[] = [];
  for (const { candidate, evidence } of kept) {
    const ofDebit = best.get(`D ${sideKey(candidate.debit)}`);
    const ofCredit = best.get(`C ${sideKey(candidate.credit)}`);
    if (ofDebit === undefined || ofCredit === undefined) continue; // never: each kept side was noted
    const topOfDebit = evidence.score === ofDebit.score;
    const topOfCredit = evidence.score === ofCredit.score;
    let status: TransferLinkInput['status'];
    if (topOfDebit && topOfCredit && ofDebit.count === 1 && ofCredit.count === 1) status = 'linked';
    // Ambiguous: at the top of both sides and tied on one; outranked on either side, dropped.
    else if (topOfDebit && topOfCredit && (ofDebit.count > 1 || ofCredit.count > 1)) status = 'ambiguous';
    else continue;
    links.push({
      status,
      debit: {
        bank: candidate.debit.bank,
        accountId: candidate.debit.accountId,
        transactionId: candidate.debit.transactionId,
      },
      credit: {
        bank: candidate.credit.bank,
        accountId: candidate.credit.accountId,
        transactionId: candidate.credit.transactionId,
      },
      currency: candidate.currency,
      amountMinor: candidate.amountMinor,
      daysApart: evidence.daysApart,
      sameConsent: evidence.sameConsent,
      sameParty: evidence.sameParty,
      ownerGroup: evidence.ownerGroup,
      counterpartySides: evidence.counterpartySides,
      referenceAgrees: evidence.referenceAgrees,
      score: evidence.score,
    });
  }
  return links;
}
