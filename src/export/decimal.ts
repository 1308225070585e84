/**
 * Exact sums of signed decimal strings (the views' `amount_text`), through BigInt at the largest
 * scale present: no binary float ever holds money. `sumDecimals(['-0.00125', '10'])` is `'9.99875'`.
 */
export function sumDecimals(values: readonly string[]): string {
  const scale = Math.max(0, ...values.map((v) => (v.split('.')[1] ?? '').length));
  const toScaled = (v: string): bigint => {
    if (!/^-?\d+(\.\d+)?$/.test(v)) throw new Error(`not a decimal amount: ${JSON.stringify(v)}`);
    const negative = v.startsWith('-');
    const [whole, frac = ''] = v.replace('-', '').split('.');
    const n = BigInt((whole ?? '') + frac.padEnd(scale, '0'));
    return negative ? -n : n;
  };
  const total = values.reduce((acc, v) => acc + toScaled(v), 0n);
  const negative = total < 0n;
  const digits = (negative ? -total : total).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}
