/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
/**
 * The version diff page: nodes changed, added and removed between two versions (diff.ts), with a
 * word diff of each changed node's text. The page is kept to about `DIFF_BUDGET` bytes: entries
 * past the budget are listed as one-line links, and past `MAX_LINKS` only counted.
 */
import type { ContextNode } from '@ctxpkg/format';
import type { PackageRecord, VersionRecord } from '../store/types.js';
import { plural, TypeBadge } from './common.js';
import type { VersionContent } from './content.js';
import { textDiff, type GraphDiff } from './diff.js';
import { shortText } from './graph-layout.js';
import { Frame, type PageUrls, type Viewer } from './layout.js';

export const DIFF_BUDGET = 140_000;
const MAX_LINKS = 300;
const SHOWN_CHARS = 3_000;

export interface DiffPageProps {
  urls: PageUrls;
  viewer: Viewer;
  pkg: PackageRecord;
  versions: VersionRecord[];
  from: string;
  to: string;
  a: VersionContent;
  b: VersionContent;
  diff: GraphDiff;
}

function where(n: ContextNode, content: VersionContent): string {
  const path = content.items.get(n.id)?.headingPath ?? [];
  const file = n.file_path ?? '';
  const lines = n.line_start !== undefined ? `:${n.line_start}` : '';
  return [file + lines, ...path].filter((s) => s !== '').join(' › ');
}

/** Splits entries into those shown in full (within the budget), those shown as links, and a count of the rest. */
function budgeted<T>(list: T[], cost: (x: T) => number, state: { used: number }): { full: T[]; links: T[]; rest: number } {
  const full: T[] = [];
  const links: T[] = [];
  for (const x of list) {
    const c = cost(x);
    if (state.used + c <= DIFF_BUDGET && links.length === 0) {
      full.push(x);
      state.used += c;
    } else if (links.length < MAX_LINKS) {
      links.push(x);
      state.used += 250;
    }
  }
  return { full, links, rest: list.length - full.length - links.length };
}

function Clip(p: { text: string }) {
  return p.text.length <= SHOWN_CHARS ? <>{p.text}</> : <>{p.text.slice(0, SHOWN_CHARS)}… (cut; open the node for the full text)</>;
}

function Links(p: { nodes: ContextNode[]; link: (id: string) => string; rest: number }) {
  if (p.nodes.length === 0 && p.rest === 0) return null;
  return (
    <ul class="plain small">
      {p.nodes.map((n) => (
        <li>
          <TypeBadge type={n.type} /> <a href={p.link(n.id)}>{shortText(n.content, 100)}</a>
        </li>
      ))}
      {p.rest > 0 ? <li class="muted">… and {p.rest} more</li> : null}
    </ul>
  );
}

export function DiffPage(p: DiffPageProps) {
  const { urls, pkg, diff } = p;
  const full = `@${pkg.namespace}/${pkg.name}`;
  const linkA = (id: string) => urls.node(pkg.namespace, pkg.name, p.from, id);
  const linkB = (id: string) => urls.node(pkg.namespace, pkg.name, p.to, id);
  const state = { used: 8_000 + p.versions.length * 160 };
  const changed = budgeted(diff.changed, (c) => Math.min(c.from.content.length, SHOWN_CHARS * 2) + Math.min(c.to.content.length, SHOWN_CHARS * 2) + 700, state);
  const added = budgeted(diff.added, (n) => Math.min(n.content.length, SHOWN_CHARS) + 500, state);
  const removed = budgeted(diff.removed, (n) => Math.min(n.content.length, SHOWN_CHARS) + 500, state);
  const here = urls.diff(pkg.namespace, pkg.name, p.from, p.to);
  const same = p.a.artifact === p.b.artifact;
  return (
    <Frame title={`Changes · ${full} ${p.from} → ${p.to}`} urls={urls} viewer={p.viewer} here={here}>
      <p class="crumbs">
        <a href={urls.ns(pkg.namespace)}>@{pkg.namespace}</a>
        <span class="sep">/</span>
        <a href={urls.pkg(pkg.namespace, pkg.name)}>{pkg.name}</a>
        <span class="sep">/</span>
        changes
      </p>
      <h1>
        What changed in {full} from <a href={urls.pkg(pkg.namespace, pkg.name, p.from)}>{p.from}</a> to{' '}
        <a href={urls.pkg(pkg.namespace, pkg.name, p.to)}>{p.to}</a>
      </h1>
      <form class="pick card" method="get" action={urls.diff(pkg.namespace, pkg.name)}>
        <label>
          From{' '}
          <select name="from">
            {p.versions.map((v) => (
              <option value={v.version} selected={v.version === p.from}>
                {v.version}
                {v.yanked ? ' (yanked)' : ''}
              </option>
            ))}
          </select>
        </label>
        <label>
          to{' '}
          <select name="to">
            {p.versions.map((v) => (
              <option value={v.version} selected={v.version === p.to}>
                {v.version}
                {v.yanked ? ' (yanked)' : ''}
              </option>
            ))}
          </select>
        </label>
        <button class="primary" type="submit">
          Compare
        </button>
      </form>
      <div class="summary card">
        <span>
          <b>{diff.changed.length}</b> changed
        </span>
        <span>
          <b>{diff.added.length}</b> added
        </span>
        <span>
          <b>{diff.removed.length}</b> removed
        </span>
        <span class="muted">
          <b>{diff.unchanged}</b> unchanged
        </span>
        <span class="muted">
          edges: +{diff.edgesAdded.length} −{diff.edgesRemoved.length}
        </span>
      </div>
      {same ? <p class="notice">Both versions carry the same artifact bytes.</p> : null}
      <div class="diff">
        <h2>Changed nodes</h2>
        {diff.changed.length === 0 ? <p class="muted">None.</p> : null}
        {changed.full.map((c) => (
          <div class="ch">
            <div class="h">
              <TypeBadge type={c.to.type} /> <span class="muted">{where(c.to, p.b)}</span> · <a href={linkB(c.to.id)}>open</a>
              {c.matchedBy === 'heading' ? <span class="muted small"> · same heading, new text (the id's text hash changed)</span> : null}
              {c.fields.filter((f) => f !== 'content').map((f) => (
                <div class="small">
                  {f}: <del>{String((c.from as unknown as Record<string, unknown>)[f] ?? '—')}</del> →{' '}
                  <ins>{String((c.to as unknown as Record<string, unknown>)[f] ?? '—')}</ins>
                </div>
              ))}
            </div>
            <div class="b">
              {c.fields.includes('content')
                ? textDiff(c.from.content.slice(0, SHOWN_CHARS * 2), c.to.content.slice(0, SHOWN_CHARS * 2)).map((part) =>
                    part.kind === 'same' ? part.text : part.kind === 'added' ? <ins>{part.text}</ins> : <del>{part.text}</del>,
                  )
                : <Clip text={c.to.content} />}
            </div>
          </div>
        ))}
        <Links nodes={changed.links.map((c) => c.to)} link={linkB} rest={changed.rest} />
        <h2>Added nodes</h2>
        {diff.added.length === 0 ? <p class="muted">None.</p> : null}
        {added.full.map((n) => (
          <div class="ch added">
            <div class="h">
              <TypeBadge type={n.type} /> <span class="muted">{where(n, p.b)}</span> · <a href={linkB(n.id)}>open</a>
            </div>
            <div class="b">
              <Clip text={n.content} />
            </div>
          </div>
        ))}
        <Links nodes={added.links} link={linkB} rest={added.rest} />
        <h2>Removed nodes</h2>
        {diff.removed.length === 0 ? <p class="muted">None.</p> : null}
        {removed.full.map((n) => (
          <div class="ch removed">
            <div class="h">
              <TypeBadge type={n.type} /> <span class="muted">{where(n, p.a)}</span> · <a href={linkA(n.id)}>open in {p.from}</a>
            </div>
            <div class="b">
              <Clip text={n.content} />
            </div>
          </div>
        ))}
        <Links nodes={removed.links} link={linkA} rest={removed.rest} />
      </div>
    </Frame>
  );
}
