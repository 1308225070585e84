/**
 * The wire view of a record the emulator keeps: its wire fields in the answer's order, an
 * optional field that is unset left out of the JSON rather than sent empty.
 */
export function wireView<T, R extends keyof T, O extends keyof T>(
  record: T,
  required: readonly R[],
  optional: readonly O[],
): Pick<T, R> & Partial<Pick<T, O>> {
  const view: Partial<Pick<T, R | O>> = {};
  for (const key of required) view[key] = record[key];
  for (const key of optional) if (record[key]) view[key] = record[key];
  return view as Pick<T, R> & Partial<Pick<T, O>>;
}
