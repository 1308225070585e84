/**
 * A view column the view declares NOT NULL (amount, booking_date, the keys), read through a row
 * getter that types every column as nullable: its value, or an error naming the column.
 */
export function required<C extends string>(get: (column: C) => string | null, column: C): string {
  const value = get(column);
  if (value === null) throw new Error(`the view row has no ${column}`);
  return value;
}
