/**
 * Advance widths of the report's SVG font, so charts can lay text out (legends, axis labels,
 * wrapped titles) without a browser. The numbers are DejaVu Sans's (regular and bold, in units
 * of 1/2048 em), read from the font files Debian ships: the SVGs ask for DejaVu Sans first, and
 * it is wider than the usual fallbacks (Arial, Helvetica, Liberation Sans), so text measured
 * here never overflows where one of those renders it. Characters not listed count as wide
 * as `M` (a safe over-estimate).
 */

const UNITS = 2048;

/** Printable ASCII (32..126), regular. */
const REGULAR_ASCII = [
  651, 821, 942, 1716, 1303, 1946, 1597, 563, 799, 799, 1024, 1716, 651, 739, 651, 690, 1303, 1303, 1303, 1303,
  1303, 1303, 1303, 1303, 1303, 1303, 690, 690, 1716, 1716, 1716, 1087, 2048, 1401, 1405, 1430, 1577, 1294,
  1178, 1587, 1540, 604, 604, 1343, 1141, 1767, 1532, 1612, 1235, 1612, 1423, 1300, 1251, 1499, 1401, 2025,
  1403, 1251, 1403, 799, 690, 799, 1716, 1024, 1024, 1255, 1300, 1126, 1300, 1260, 721, 1300, 1298, 569, 569,
  1186, 569, 1995, 1298, 1253, 1300, 1300, 842, 1067, 803, 1298, 1212, 1675, 1212, 1212, 1075, 1303, 690, 1303,
  1716,
];
/** Printable ASCII (32..126), bold. */
const BOLD_ASCII = [
  713, 934, 1067, 1716, 1425, 2052, 1786, 627, 936, 936, 1071, 1716, 778, 850, 778, 748, 1425, 1425, 1425, 1425,
  1425, 1425, 1425, 1425, 1425, 1425, 819, 819, 1716, 1716, 1716, 1188, 2048, 1585, 1561, 1503, 1700, 1399,
  1399, 1681, 1714, 762, 762, 1587, 1305, 2038, 1714, 1741, 1501, 1741, 1577, 1475, 1397, 1663, 1585, 2259,
  1579, 1483, 1485, 936, 748, 936, 1716, 1024, 1024, 1382, 1466, 1214, 1466, 1389, 891, 1466, 1458, 702, 702,
  1362, 702, 2134, 1458, 1407, 1466, 1466, 1010, 1219, 979, 1458, 1335, 1892, 1321, 1335, 1192, 1458, 748, 1458,
  1716,
];
/** A few non-ASCII characters the report prints. */
const EXTRA_CHARS = "∖θ±⊗–—•→←…×·≤≥";
const EXTRA_REGULAR = [1716, 1253, 1716, 1716, 1024, 2048, 1208, 1716, 1716, 2048, 1716, 651, 1716, 1716];
const EXTRA_BOLD = [1716, 1407, 1716, 1716, 1024, 2048, 1309, 1716, 1716, 2048, 1716, 778, 1716, 1716];

/** The font-family every SVG of the report asks for (the metrics above are the first one's). */
export const SVG_FONT_FAMILY = "'DejaVu Sans', Arial, Helvetica, sans-serif";

function advance(ch: string, bold: boolean): number {
  const code = ch.codePointAt(0)!;
  if (code >= 32 && code <= 126) return (bold ? BOLD_ASCII : REGULAR_ASCII)[code - 32]!;
  const i = EXTRA_CHARS.indexOf(ch);
  if (i >= 0) return (bold ? EXTRA_BOLD : EXTRA_REGULAR)[i]!;
  return bold ? 2038 : 1767;
}

/** Width of `text` at `fontSize` (user units), without kerning. */
export function textWidth(text: string, fontSize: number, bold = false): number {
  let units = 0;
  for (const ch of text) units += advance(ch, bold);
  return (units / UNITS) * fontSize;
}
