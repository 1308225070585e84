/**
 * The world's only source of randomness: sfc32 seeded from a string hash (cyrb128). Never
 * Math.random or the real clock, so the same seed gives the same world byte for byte. Each
 * concern derives its own stream from labels (`createPrng(seed, 'PNZ', 'customer', 0)`), so
 * adding a bank or a customer does not reshuffle everything else.
 */
export interface Prng {
  /** A float in [0, 1): for choices only, never for money. */
  next(): number;
  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** `length` lowercase hex digits. */
  hex(length: number): string;
  /** `length` decimal digits (leading zeros kept). */
  digits(length: number): string;
  /** A lowercase UUID v4 (RFC 9562: version nibble 4, variant 10xx). */
  uuid(): string;
}

/** cyrb128: four 32-bit seeds from a string. */
function hashSeed(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  return [(h1 ^ h2 ^ h3 ^ h4) >>> 0, (h2 ^ h1) >>> 0, (h3 ^ h1) >>> 0, (h4 ^ h1) >>> 0];
}

export function createPrng(seed: number, ...labels: Array<string | number>): Prng {
  let [a, b, c, d] = hashSeed([seed, ...labels].join('\u001f'));
  const nextUint32 = (): number => {
    // sfc32 (Chris Doty-Humphrey's Small Fast Counting generator).
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; i++) nextUint32(); // discard the warm-up outputs
  const next = (): number => nextUint32() / 4294967296;
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  const hex = (length: number): string => {
    let out = '';
    while (out.length < length) out += nextUint32().toString(16).padStart(8, '0');
    return out.slice(0, length);
  };
  return {
    next,
    int,
    chance: (probability) => next() < probability,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new RangeError('pick from an empty list');
      return items[int(0, items.length - 1)] as T;
    },
    hex,
    digits: (length) => Array.from({ length }, () => String(int(0, 9))).join(''),
    uuid() {
      const h = hex(32).split('');
      h[12] = '4';
      h[16] = ((parseInt(h[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
      const s = h.join('');
      return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
    },
  };
}
