/**
 * The pages' only static files: one stylesheet and one small script, served by the registry
 * itself under content-hashed names (`/ui/assets/style.<hash>.css`), so they can be cached
 * forever and the Content-Security-Policy can allow `'self'` and nothing else. The pages work
 * without the script; it only adds the copy buttons.
 */
import { createHash } from 'node:crypto';

const NODE_COLOURS = ['#475569', '#dc2626', '#2563eb', '#16a34a', '#b45309', '#9333ea', '#0d9488', '#ea580c', '#db2777', '#0891b2', '#4f46e5', '#92400e'];
const EDGE_COLOURS = ['#94a3b8', '#2563eb', '#7c3aed', '#0d9488', '#ca8a04', '#dc2626', '#db2777', '#64748b'];

const palette = [
  ...NODE_COLOURS.map((c, i) => `.c${i}{--t:${c}}`),
  ...EDGE_COLOURS.map((c, i) => `.e${i}{--e:${c}}`),
].join('\n');

export const STYLE_CSS = `:root{color-scheme:light;--fg:#0f172a;--muted:#64748b;--line:#e2e8f0;--bg:#f8fafc;--card:#fff;--accent:#0f766e;--accent-soft:#ccfbf1;--warn:#b91c1c;--warn-soft:#fee2e2;--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace}
*{box-sizing:border-box}
html{font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);background:var(--bg)}
body{margin:0}
a{color:var(--accent);text-decoration:none}
a:hover{text-decoration:underline}
code,pre,.mono{font-family:var(--mono);font-size:.88em}
header.top{background:#0f172a;color:#e2e8f0}
header.top .bar{max-width:1180px;margin:0 auto;padding:.6rem 1.2rem;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
header.top a{color:#e2e8f0}
header.top .brand{font-weight:700;font-size:1.1rem;letter-spacing:.01em;white-space:nowrap}
header.top .brand span{color:#5eead4}
header.top form.search{flex:1;display:flex;min-width:220px;max-width:560px}
header.top input[type=search]{flex:1;padding:.42rem .7rem;border:1px solid #334155;border-radius:6px 0 0 6px;background:#1e293b;color:#f1f5f9;font:inherit}
header.top button{padding:.42rem .8rem;border:1px solid #334155;border-left:0;border-radius:0 6px 6px 0;background:#334155;color:#f1f5f9;font:inherit;cursor:pointer}
header.top .who{margin-left:auto;display:flex;gap:.6rem;align-items:center;font-size:.9rem;white-space:nowrap}
header.top .who form{display:inline}
header.top .who button{border-radius:6px;border:1px solid #475569;padding:.2rem .6rem}
main{max-width:1180px;margin:0 auto;padding:1.2rem}
footer{max-width:1180px;margin:0 auto;padding:1.5rem 1.2rem 2.5rem;color:var(--muted);font-size:.85rem}
h1{font-size:1.6rem;margin:.2rem 0 .4rem;line-height:1.25;overflow-wrap:anywhere}
h1.node{font-size:1.3rem}
h2{font-size:1.15rem;margin:1.6rem 0 .6rem;padding-bottom:.3rem;border-bottom:1px solid var(--line)}
h3{font-size:1rem;margin:1rem 0 .4rem}
.muted{color:var(--muted)}
.small{font-size:.85rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:1rem 1.1rem;margin:0 0 1rem}
.notice{background:var(--accent-soft);border:1px solid #99f6e4;border-radius:8px;padding:.6rem .9rem;margin:0 0 1rem}
.notice.warn{background:var(--warn-soft);border-color:#fecaca;color:#7f1d1d}
.pill{display:inline-block;font-size:.75rem;font-weight:600;padding:.05rem .5rem;border-radius:999px;background:#e2e8f0;color:#334155;vertical-align:middle;white-space:nowrap}
.pill.private{background:#fef3c7;color:#92400e}
.pill.yanked{background:var(--warn-soft);color:var(--warn)}
.pill.latest{background:var(--accent-soft);color:#115e59}
.pill.pass{background:#dcfce7;color:#166534}
.pill.skip{background:#f1f5f9;color:#475569}
.grid{display:grid;grid-template-columns:minmax(0,1fr) 340px;gap:1.4rem;align-items:start}
@media (max-width:900px){.grid{grid-template-columns:minmax(0,1fr)}}
.side h2:first-child,.grid>section>h2:first-child{margin-top:0}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
ul.plain{list-style:none;margin:0;padding:0}
ul.plain>li{padding:.45rem 0;border-bottom:1px solid var(--line)}
ul.plain>li:last-child{border-bottom:0}
.results li .name{font-weight:600;font-size:1.05rem}
.snippet{color:#334155;font-size:.92rem;overflow-wrap:anywhere}
mark{background:#fde68a;color:inherit;border-radius:2px;padding:0 1px}
.install{display:flex;align-items:center;gap:.5rem;background:#0f172a;color:#e2e8f0;border-radius:8px;padding:.55rem .8rem;margin:.8rem 0}
.install code{flex:1;color:#e2e8f0;font-size:.95rem;overflow-wrap:anywhere}
.install code::before{content:"$ ";color:#64748b}
.install button{font:inherit;font-size:.82rem;padding:.2rem .7rem;border-radius:6px;border:1px solid #475569;background:#1e293b;color:#e2e8f0;cursor:pointer}
.key{font-family:var(--mono);font-size:.82rem;overflow-wrap:anywhere}
.types{display:flex;flex-wrap:wrap;gap:.4rem .9rem;margin:.2rem 0}
.swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:3px;background:var(--t,#94a3b8);vertical-align:-1px;margin-right:.3rem}
.eswatch{display:inline-block;width:1.4rem;height:0;border-top:3px solid var(--e,#94a3b8);vertical-align:middle;margin-right:.3rem}
.badge{display:inline-block;font-size:.72rem;font-weight:600;padding:0 .45rem;border-radius:4px;color:#fff;background:var(--t,#64748b);white-space:nowrap;vertical-align:1px}
.file{margin:0 0 1.2rem;border:1px solid var(--line);border-radius:8px;background:var(--card)}
.file>.fhead{padding:.6rem .9rem;border-bottom:1px solid var(--line);background:#f1f5f9;border-radius:8px 8px 0 0}
.file>.fhead .path{font-family:var(--mono);font-size:.9rem;font-weight:600;overflow-wrap:anywhere}
.file>.fhead .title{margin-left:.5rem;color:var(--muted)}
.scopes{margin-top:.3rem;font-size:.85rem}
.scopes code{background:#e0f2fe;border-radius:4px;padding:0 .3rem;margin-right:.3rem}
.items{padding:.3rem .9rem .6rem}
.item{display:flex;gap:.6rem;align-items:baseline;padding:.3rem .2rem .3rem .6rem;border-left:3px solid var(--t,#cbd5e1);margin:.3rem 0;background:color-mix(in srgb,var(--t,#cbd5e1) 4%,#fff);border-radius:0 4px 4px 0}
.item.sec{border-left:0;background:none;padding-left:0;margin-top:.9rem}
.item.sec .stitle{font-weight:700}
.item .text{flex:1;min-width:0;white-space:pre-wrap;overflow-wrap:anywhere;margin:0;font:inherit;font-size:.93rem}
.item .meta{font-size:.75rem;color:var(--muted);white-space:nowrap}
.d1{margin-left:1.1rem!important}.d2{margin-left:2.2rem!important}.d3{margin-left:3.3rem!important}.d4{margin-left:4.4rem!important}
.d5{margin-left:5.5rem!important}.d6{margin-left:6.6rem!important}.d7{margin-left:7.7rem!important}.d8{margin-left:8.8rem!important}
.crumbs{font-size:.85rem;color:var(--muted);overflow-wrap:anywhere}
.crumbs .sep{margin:0 .3rem}
pre.content{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--card);border:1px solid var(--line);border-left:4px solid var(--t,#94a3b8);border-radius:6px;padding:.8rem 1rem;font-size:.9rem;margin:.6rem 0 1rem}
dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.25rem 1rem;margin:0}
dl.facts dt{color:var(--muted);font-size:.85rem}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.graphwrap{overflow:auto;border:1px solid var(--line);border-radius:8px;background:#fff;max-height:80vh}
svg.graph{display:block;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
svg.graph .n rect{fill:color-mix(in srgb,var(--t) 12%,#fff);stroke:var(--t);stroke-width:1.5}
svg.graph .n:hover rect,svg.graph .n:focus rect{fill:color-mix(in srgb,var(--t) 28%,#fff)}
svg.graph .n text{font-size:12px;fill:#0f172a}
svg.graph .n text.ty{font-size:9px;fill:var(--t);font-weight:700;text-transform:uppercase;letter-spacing:.04em}
svg.graph .band>rect{fill:#f1f5f9;stroke:#e2e8f0;stroke-width:1}
svg.graph .band text{font-size:13px;font-weight:700;fill:#0f172a;font-family:var(--mono)}
svg.graph .band tspan.sub{font-weight:400;fill:#64748b;font-family:system-ui,sans-serif}
svg.graph .cl>rect{fill:#fff;stroke:#cbd5e1;stroke-width:1}
svg.graph .cl text{font-size:12px;fill:#0f172a;font-weight:600}
svg.graph .cl text.sub{font-size:10px;fill:#64748b;font-weight:400}
svg.graph a.dot rect{fill:var(--t);stroke:none}
svg.graph a.dot:hover rect{stroke:#0f172a;stroke-width:2}
svg.graph .ed path{fill:none;stroke:var(--e);stroke-width:1.4;stroke-opacity:.85}
svg.graph .ed text{font-size:10px;fill:var(--e)}
svg.graph marker path{fill:#64748b}
.diff .item{display:block}
.diff .ch{margin:.5rem 0 1rem;border:1px solid var(--line);border-radius:8px;background:var(--card)}
.diff .ch .h{padding:.4rem .8rem;border-bottom:1px solid var(--line);background:#f8fafc;font-size:.88rem;overflow-wrap:anywhere}
.diff .ch .b{padding:.6rem .8rem;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.92rem}
del{background:#fee2e2;color:#991b1b;text-decoration:line-through;text-decoration-color:#f87171}
ins{background:#dcfce7;color:#166534;text-decoration:none}
.added{border-left:4px solid #16a34a!important}
.removed{border-left:4px solid #dc2626!important}
.summary{display:flex;gap:1.2rem;flex-wrap:wrap;font-size:.95rem}
.summary b{font-size:1.2rem}
form.pick{display:flex;gap:.6rem;align-items:center;flex-wrap:wrap}
select,input[type=password],input[type=text]{font:inherit;padding:.35rem .5rem;border:1px solid #cbd5e1;border-radius:6px;background:#fff}
button.primary{font:inherit;padding:.4rem 1rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer}
.login{max-width:520px}
.login input[type=password]{width:100%;margin:.3rem 0 .8rem;font-family:var(--mono)}
.nav{display:flex;gap:1rem;flex-wrap:wrap;margin:.4rem 0 .2rem;font-size:.92rem}
.pager{margin:1rem 0;display:flex;gap:1rem}
${palette}
`;

/** A small icon (the brand's teal square with a graph), so browsers do not ask for /favicon.ico. */
export const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0f172a"/><path d="M9 10l7 6-7 6M16 16h7" stroke="#5eead4" stroke-width="3" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

export const APP_JS = `"use strict";
(function () {
  var buttons = document.querySelectorAll("button[data-copy]");
  Array.prototype.forEach.call(buttons, function (b) {
    var target = document.getElementById(b.getAttribute("data-copy"));
    if (!target) return;
    b.hidden = false;
    b.addEventListener("click", function () {
      var text = target.textContent || "";
      var done = function (word) { b.textContent = word; setTimeout(function () { b.textContent = "Copy"; }, 1500); };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(function () { done("Copied"); }, function () { select(); done("Press Ctrl+C"); });
      } else { select(); done("Press Ctrl+C"); }
      function select() { var r = document.createRange(); r.selectNodeContents(target); var s = window.getSelection(); s.removeAllRanges(); s.addRange(r); }
    });
  });
})();
`;

function hashed(name: string, ext: string, text: string): { path: string; body: Uint8Array; etag: string } {
  const body = Buffer.from(text, 'utf8');
  const h = createHash('sha256').update(body).digest('hex');
  return { path: `${name}.${h.slice(0, 12)}.${ext}`, body, etag: `"${h.slice(0, 32)}"` };
}

/** The served assets by file name (under `/ui/assets/`), with their content types. */
export const ASSETS = (() => {
  const css = hashed('style', 'css', STYLE_CSS);
  const js = hashed('app', 'js', APP_JS);
  const icon = hashed('icon', 'svg', ICON_SVG);
  return {
    css: css.path,
    js: js.path,
    icon: icon.path,
    files: new Map([
      [icon.path, { body: icon.body, etag: icon.etag, type: 'image/svg+xml' }],
      [css.path, { body: css.body, etag: css.etag, type: 'text/css; charset=utf-8' }],
      [js.path, { body: js.body, etag: js.etag, type: 'text/javascript; charset=utf-8' }],
    ]),
  };
})();
