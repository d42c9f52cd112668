/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
/**
 * The graph page: a server-drawn SVG of a version's knowledge graph (layout: graph-layout.ts),
 * inline in the page so that every node is a plain link to its node page. Colours come from the
 * fixed classes of palette.ts; every text (labels, tooltips, titles) is a JSX child, so escaped.
 */
import { raw } from 'hono/html';
import type { PackageRecord, VersionRecord } from '../store/types.js';
import { plural } from './common.js';
import type { GraphPicture, Point } from './graph-layout.js';
import { Frame, type PageUrls, type Viewer } from './layout.js';
import { edgeClass, nodeClass } from './palette.js';

function pathOf(points: Point[]): string {
  return points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x},${p.y}`).join(' ');
}

/** The point halfway along a polyline (by length). */
export function middle(points: Point[]): Point {
  if (points.length === 0) return { x: 0, y: 0 };
  const seg = points.slice(1).map((p, i) => Math.hypot(p.x - points[i].x, p.y - points[i].y));
  let left = seg.reduce((a, b) => a + b, 0) / 2;
  for (let i = 0; i < seg.length; i++) {
    if (left <= seg[i] && seg[i] > 0) {
      const t = left / seg[i];
      return { x: Math.round(points[i].x + (points[i + 1].x - points[i].x) * t), y: Math.round(points[i].y + (points[i + 1].y - points[i].y) * t) };
    }
    left -= seg[i];
  }
  return points[points.length - 1];
}

/** At most `n` characters of `s`, with `…` when cut. */
function fit(s: string, n: number): string {
  const chars = [...s];
  return chars.length <= n ? s : `${chars.slice(0, Math.max(1, n - 1)).join('')}…`;
}

/** The `<svg>` of a picture; `link(id)` is a node's page, `focus(key)` a cluster's own picture. */
export function GraphSvg(p: { pic: GraphPicture; link: (id: string) => string; focus: (key: string) => string; label: string }) {
  const { pic } = p;
  const w = Math.max(pic.width, 1);
  const h = Math.max(pic.height, 1);
  return (
    <svg class="graph" xmlns="http://www.w3.org/2000/svg" width={w} height={h} viewBox={`0 0 ${w} ${h}`} role="img" aria-label={p.label}>
      <defs>
        <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M0,0L10,5L0,10z"></path>
        </marker>
      </defs>
      {pic.bands.map((b) => (
        <g class="band">
          <rect x={b.x} y={b.y} width={b.w} height={b.h} rx="10"></rect>
          <text x={b.x + 10} y={b.y + 20}>
            {fit(b.title, Math.floor((b.w - 130) / 8))}
            <tspan class="sub"> · {plural(b.count, 'node')}</tspan>
          </text>
        </g>
      ))}
      {pic.clusters.map((c) => (
        <g class="cl">
          <rect x={c.x} y={c.y} width={c.w} height={c.h} rx="8"></rect>
          <a href={p.focus(c.key)}>
            <title>Draw these {c.size} nodes one by one</title>
            <text x={c.x + 10} y={c.y + 17}>
              {fit(c.title, Math.floor((c.w - 20) / 7.6))}
            </text>
          </a>
          <text class="sub" x={c.x + 10} y={c.y + 30}>
            {plural(c.size, 'node')}
            {c.dots.length < c.size ? ` (${c.dots.length} shown)` : ''}
          </text>
          {c.dots.map((d) => (
            <a class={`dot ${nodeClass(d.type)}`} href={p.link(d.id)}>
              <title>
                {d.type}: {d.label}
              </title>
              <rect x={d.x} y={d.y} width="10" height="10" rx="2"></rect>
            </a>
          ))}
        </g>
      ))}
      {pic.edges.map((e) => {
        const m = middle(e.points);
        const label = e.type === 'contains' ? (e.count > 1 ? `×${e.count}` : '') : e.count > 1 ? `${e.type} ×${e.count}` : e.type;
        return (
          <g class={`ed ${edgeClass(e.type)}`}>
            <path d={pathOf(e.points)} marker-end="url(#arrow)"></path>
            {label !== '' ? (
              <text x={m.x + 4} y={m.y - 4}>
                {label}
              </text>
            ) : null}
          </g>
        );
      })}
      {pic.nodes.map((n) => (
        <a class={`n ${nodeClass(n.type)}`} href={p.link(n.id)}>
          <title>
            {n.type}: {n.label}
          </title>
          <rect x={n.x} y={n.y} width={n.w} height={n.h} rx="6"></rect>
          <text class="ty" x={n.x + 8} y={n.y + 12}>
            {n.type}
          </text>
          <text x={n.x + 8} y={n.y + 27}>
            {n.label}
          </text>
        </a>
      ))}
    </svg>
  );
}

/**
 * The SVG of a picture rendered once to markup (escaped by JSX like any page), for the layout
 * cache to keep beside the picture: a 1,000-node picture is ~275 KB of markup.
 */
export function renderGraphSvg(urls: PageUrls, pkg: PackageRecord, version: string, pic: GraphPicture): string {
  const link = (id: string) => urls.node(pkg.namespace, pkg.name, version, id);
  const focus = (key: string) => urls.graph(pkg.namespace, pkg.name, version, key);
  return String(<GraphSvg pic={pic} link={link} focus={focus} label={`Knowledge graph of @${pkg.namespace}/${pkg.name} ${version}`} />);
}

export interface GraphPageProps {
  urls: PageUrls;
  viewer: Viewer;
  pkg: PackageRecord;
  v: VersionRecord;
  pic: GraphPicture;
  /** `renderGraphSvg` of `pic`: markup JSX produced (and escaped), inserted as is. */
  svg: string;
  nodeCount: number;
  focus: string | undefined;
  /** The focused cluster's title. */
  focusTitle: string | undefined;
}

export function GraphPage(p: GraphPageProps) {
  const { urls, pkg, v, pic } = p;
  const full = `@${pkg.namespace}/${pkg.name}`;
  const types = [...new Set([...pic.nodes.map((n) => n.type), ...pic.clusters.flatMap((c) => c.dots.map((d) => d.type))])].sort();
  const edgeTypes = [...new Set(pic.edges.map((e) => e.type))].sort();
  const here = urls.graph(pkg.namespace, pkg.name, v.version, p.focus);
  return (
    <Frame title={`Graph · ${full}@${v.version}`} urls={urls} viewer={p.viewer} here={here}>
      <p class="crumbs">
        <a href={urls.ns(pkg.namespace)}>@{pkg.namespace}</a>
        <span class="sep">/</span>
        <a href={urls.pkg(pkg.namespace, pkg.name, v.version)}>
          {pkg.name} {v.version}
        </a>
        <span class="sep">/</span>
        graph
      </p>
      <h1>
        Knowledge graph of {full} <span class="pill">{v.version}</span>
      </h1>
      {p.focus !== undefined ? (
        <p>
          Group <b>{p.focusTitle ?? ''}</b>: {plural(pic.nodes.length, 'node')} drawn one by one
          {pic.omitted > 0 ? `, ${pic.omitted} more not drawn` : ''}. <a href={urls.graph(pkg.namespace, pkg.name, v.version)}>← whole graph</a>
        </p>
      ) : pic.mode === 'clusters' ? (
        <p class="muted">
          {plural(p.nodeCount, 'node')} in {plural(pic.clusters.length, 'group')}: one band per source file, one box per top-level section. Each square is a
          node: hover for its text, click to read it. Click a box's title to draw its nodes one by one.
        </p>
      ) : (
        <p class="muted">{plural(p.nodeCount, 'node')}. Each box is a node: click it to read it and see its edges.</p>
      )}
      <div class="types small">
        {types.map((t) => (
          <span>
            <span class={`swatch ${nodeClass(t)}`}></span>
            {t}
          </span>
        ))}
        {edgeTypes.map((t) => (
          <span>
            <span class={`eswatch ${edgeClass(t)}`}></span>
            {t}
          </span>
        ))}
      </div>
      {pic.edgesOmitted > 0 ? <p class="muted small">{plural(pic.edgesOmitted, 'edge')} not drawn (only the {pic.edges.length} busiest lines are).</p> : null}
      <div class="graphwrap">
        {/* Already-rendered JSX output (renderGraphSvg), never package text: inserting it unescaped is safe. */}
        {raw(p.svg)}
      </div>
    </Frame>
  );
}
