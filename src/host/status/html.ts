/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** `2026-01-01T12:00:00.000Z` → `2026-01-01 12:00:00Z`; `—` for null. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

/** Seconds as `42s`, `5m 3s`, `2h 10m`, `3d 4h`; `—` for null. */
export function formatSeconds(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  const sign = seconds < 0 ? '-' : '';
  let s = Math.abs(Math.round(seconds));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3_600);
  const m = Math.floor((s % 3_600) / 60);
  s %= 60;
  if (d > 0) return `${sign}${d}d ${h}h`;
  if (h > 0) return `${sign}${h}h ${m}m`;
  if (m > 0) return `${sign}${m}m ${s}s`;
  return `${sign}${s}s`;
}

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f8fa}
header{background:#0b3d62;color:#fff;padding:10px 20px;display:flex;gap:20px;align-items:baseline}
header h1{font-size:18px;margin:0}header a{color:#cfe6ff}
main{padding:8px 20px 40px}section{background:#fff;border:1px solid #d0d7de;border-radius:6px;margin:14px 0;padding:10px 14px}
h2{font-size:15px;margin:4px 0 10px}table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eaeef2;vertical-align:top}th{font-weight:600;color:#57606a}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.Succeeded,.Success{color:#1a7f37}.Failed{color:#cf222e}.Transitive{color:#9a6700}.Ignored{color:#57606a}
.muted{color:#57606a}.problem{color:#cf222e}.charts{display:flex;flex-wrap:wrap;gap:24px}
button{font:inherit;padding:2px 10px;cursor:pointer;white-space:nowrap}#action-status{margin-left:auto;font-weight:600}
header .Succeeded{color:#7ee787}header .Failed{color:#ffaba8}
code{background:#eaeef2;padding:1px 4px;border-radius:4px}td code{white-space:nowrap}pre{white-space:pre-wrap}`;

/** The whole document; `script` is inlined (no external assets: the page works offline). */
export function layout(title: string, nav: string, body: string, script = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><header><h1>${escapeHtml(title)}</h1>${nav}<span id="action-status" role="status"></span></header>
<main>${body}</main>${script ? `<script>${script}</script>` : ''}</body></html>`;
}
