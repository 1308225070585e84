/**
 * The server's seeded randomness (fault draws, new consent ids): mulberry32, a few lines and
 * fully determined by its seed, so the same seed and the same request sequence give the same
 * faults and ids. Never Math.random.
 */
export type Random = () => number;

/** A PRNG in [0, 1) from a 32-bit seed (mulberry32). */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A lowercase UUID v4 drawn from the PRNG (docs/bank-api.md §1.2: consent_id is a lowercase UUID). */
export function randomUuid(random: Random): string {
  const bytes: number[] = [];
  for (let i = 0; i < 16; i++) bytes.push(Math.floor(random() * 256));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
