/**
 * Statement file content negotiation (docs/bank-api.md §6.7): the Accept header's q-values are honoured;
 * among equal q the bank's list order decides; a more specific range overrides a wider one.
 */
export interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

export function parseAccept(header: string | undefined): MediaRange[] {
  if (header === undefined || header.trim() === '') return [{ type: '*', subtype: '*', q: 1 }];
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [mediaType = '', ...params] = part.split(';').map((p) => p.trim());
    const [type, subtype] = mediaType.toLowerCase().split('/');
    if (!type || !subtype) continue;
    let q = 1;
    for (const param of params) {
      const match = /^q\s*=\s*([0-9.]+)$/i.exec(param);
      if (match) q = Math.min(1, Math.max(0, Number(match[1])));
    }
    if (Number.isFinite(q)) ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The q the Accept ranges give one content type: the most specific matching range wins. */
function qualityOf(contentType: string, ranges: readonly MediaRange[]): number {
  const [type, subtype] = contentType.toLowerCase().split('/');
  let best: { specificity: number; q: number } | null = null;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === '*'
          ? 1
          : range.type === '*' && range.subtype === '*'
            ? 0
            : -1;
    if (specificity < 0) continue;
    if (!best || specificity > best.specificity || (specificity === best.specificity && range.q > best.q)) {
      best = { specificity, q: range.q };
    }
  }
  return best?.q ?? 0;
}

/** The bank's type to send, or null (406). */
export function negotiateContentType(accept: string | undefined, offered: readonly string[]): string | null {
  const ranges = parseAccept(accept);
  let chosen: string | null = null;
  let chosenQ = 0;
  for (const type of offered) {
    const q = qualityOf(type, ranges);
    if (q > chosenQ) {
      chosen = type;
      chosenQ = q;
    }
  }
  return chosen;
}

/** Content-Disposition filename: the statement id with every character outside A-Za-z0-9._- as `_`. */
export function statementFileName(statementId: string, contentType: string): string {
  const base = statementId.replace(/[^A-Za-z0-9._-]/g, '_');
  return `${base}.${contentType === 'text/csv' ? 'csv' : 'pdf'}`;
}
