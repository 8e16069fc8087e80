/**
 * Numbers printed the way C's printf("%.Nf") prints them (trec_eval prints with "%.4f"): the exact
 * binary value rounded to N decimals, an exact tie going to the even digit. JavaScript's toFixed
 * rounds exact ties away from zero instead (0.03125.toFixed(4) = "0.0313", trec_eval "0.0312").
 */

/** printf("%.<digits>f", x) for finite x. Pure. */
export function formatFixed(x: number, digits: number): string {
  if (!Number.isFinite(x)) return String(x);
  const rounded = x.toFixed(digits);
  // An exact tie at `digits` decimals is a dyadic rational with few decimal digits, so 60 exact
  // digits (toFixed is exact up to 100) show whether the tail is exactly 5 followed by zeros.
  const exact = Math.abs(x).toFixed(Math.min(100, digits + 60));
  const tail = exact.slice(exact.indexOf(".") + 1 + digits);
  if (!/^50*$/.test(tail)) return rounded;
  const truncated = (x < 0 ? "-" : "") + exact.slice(0, exact.length - tail.length).replace(/\.$/, "");
  const lastDigit = Number(truncated.replace(/\D/g, "").slice(-1));
  return lastDigit % 2 === 0 ? truncated : rounded;
}
