/**
 * The report's one stylesheet, inlined into every page (index.html and the provenance
 * pages), so each page is self-contained and opens from disk without a server.
 */
export const REPORT_CSS = [
  "body{font-family:'DejaVu Sans',Arial,Helvetica,sans-serif;max-width:72rem;margin:1.5rem auto;padding:0 1rem;line-height:1.45;color:#1a1a1a}",
  "h1{font-size:1.6rem;margin:.2rem 0 .8rem}h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem}h3{font-size:1.05rem;margin:1.6rem 0 .3rem}",
  "a{color:#0b5394}code,pre{font-family:'DejaVu Sans Mono',monospace;font-size:.85em}pre{background:#f6f6f6;padding:.5rem;overflow-x:auto}",
  ".dataset{padding:.6rem 1rem;border-left:4px solid #0072B2;background:#f2f7fb}.dataset.mini{border-color:#D55E00;background:#fdf3ec}",
  ".caption{color:#444;font-size:.9rem;margin:.2rem 0 .5rem}.panel{font-size:.85rem;color:#555;margin:.6rem 0 .2rem;font-style:italic}",
  ".scroll{overflow-x:auto}",
  "table.results{border-collapse:collapse;font-size:.88rem;margin:.3rem 0;font-variant-numeric:tabular-nums}",
  "table.results th,table.results td{padding:.22rem .5rem;border-bottom:1px solid #e4e4e4}",
  "table.results thead th{border-bottom:1px solid #999;font-weight:600;text-align:center;vertical-align:bottom}",
  "table.results th.band{border-bottom:1px solid #bbb;background:#f4f6f8}table.results .unit{display:block;font-weight:normal;color:#666;font-size:.78rem}",
  "table.results th.system,table.results tbody th{text-align:left;font-weight:normal;white-space:nowrap}",
  "table.results td.num{text-align:right;white-space:nowrap}table.results td.paper,table.results th.paper{color:#666;background:#fafafa}",
  "table.results td.ours a{text-decoration:none;border-bottom:1px dotted #0b5394}table.results td.ours a:hover{background:#e8f0fa}",
  "table.results .sd{color:#555;font-size:.85em}table.results tfoot td,table.results tfoot th{color:#444;font-size:.85rem;border-top:1px solid #999}",
  "table.results td.no-input,table.results td.no-turns,table.results td.none{color:#888}sup.note{color:#a33}",
  "ul.notes{font-size:.82rem;color:#444;margin:.3rem 0;padding-left:1.1rem}.downloads{font-size:.85rem}",
  "figure{margin:1rem 0}figure svg{max-width:100%;height:auto}figcaption{font-size:.9rem;color:#333}",
  ".findings .claim{border:1px solid #ddd;border-left-width:6px;padding:.5rem .8rem;margin:.6rem 0}",
  ".verdict{font-weight:700;padding:.05rem .45rem;border-radius:3px;color:#fff}",
  ".verdict.holds{background:#1b7f3b}.claim.holds{border-left-color:#1b7f3b}.verdict.does-not-hold{background:#b3261e}.claim.does-not-hold{border-left-color:#b3261e}",
  ".verdict.inconclusive{background:#8a6d00}.claim.inconclusive{border-left-color:#8a6d00}",
  ".kv th{text-align:left;font-weight:normal;color:#555;padding-right:1rem}.key{font-family:'DejaVu Sans Mono',monospace;font-size:.8em;color:#555;word-break:break-all}",
  "ol.chain{list-style:none;padding-left:0;font-size:.88rem}ol.chain li{margin:.15rem 0}ol.chain .via{color:#777}ol.chain .repeat{color:#888}",
  ".curves{display:flex;flex-wrap:wrap;gap:1rem}nav.toc{font-size:.9rem}nav.toc ul ul{display:flex;flex-wrap:wrap;gap:.2rem 1.2rem;padding-left:1rem;list-style:none}",
].join("\n");
