/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
/**
 * The package page: one version of a package — install command (for a yanked version: the notice
 * and the latest version's command instead), description, versions, declared
 * dependencies and dependents, signer key and the publish-time trust report, node-type counts,
 * and the content as a tree (source file → heading path → nodes in source order, with scope
 * patterns). Large contents are split into parts of about `PART_BUDGET` bytes of page, so every
 * part stays well under 200 KB; each node links to its own page with the full text.
 */
import { createHash } from 'node:crypto';
import { raw } from 'hono/html';
import { keyFingerprint } from '@ctxpkg/format';
import type { DependentRecord, PackageRecord, SignerKeyRecord, VersionRecord } from '../store/types.js';
import { bytesText, plural, readableText, TypeBadge, When } from './common.js';
import type { VersionContent } from './content.js';
import { Frame, type PageUrls, type Viewer } from './layout.js';
import { nodeClass } from './palette.js';
import type { TreeFile, TreeItem } from './tree.js';

/** Characters of a node's text shown in the tree; the node page shows all of it. */
export const TREE_TEXT_CHARS = 1_500;
/** Estimated page bytes per part of the tree (node text plus about `ITEM_OVERHEAD` of markup per node). */
export const PART_BUDGET = 110_000;
const ITEM_OVERHEAD = 420;

/** The `id` attribute of a node in the tree: `n-` + 12 hex of SHA-256 of its id (stable across versions). */
export function nodeAnchor(id: string): string {
  return `n-${createHash('sha256').update(id, 'utf8').digest('hex').slice(0, 12)}`;
}

export interface TreePart {
  /** Files (or the slice of a file) in this part. */
  files: Array<{ file: TreeFile; items: TreeItem[]; continued: boolean }>;
}

/** Split a tree into parts of about `PART_BUDGET` estimated bytes, cutting only between nodes. Always at least one part. */
export function splitTree(tree: TreeFile[], budget = PART_BUDGET): TreePart[] {
  const parts: TreePart[] = [{ files: [] }];
  let used = 0;
  for (const file of tree) {
    let slice = { file, items: [] as TreeItem[], continued: false };
    parts[parts.length - 1].files.push(slice);
    used += 300 + file.scopes.reduce((n, s) => n + s.content.length + 40, 0);
    for (const item of file.items) {
      const cost = ITEM_OVERHEAD + item.node.id.length * 2 + Math.min(item.node.content.length, TREE_TEXT_CHARS);
      if (used + cost > budget && used > 0 && (slice.items.length > 0 || parts[parts.length - 1].files.length > 1)) {
        parts.push({ files: [] });
        used = 300;
        slice = { file, items: [], continued: true };
        parts[parts.length - 1].files.push(slice);
      }
      slice.items.push(item);
      used += cost;
    }
  }
  return parts;
}

/** The 1-based part of the tree that shows node `id` (1 when it is not in the tree). */
export function partOf(parts: TreePart[], id: string): number {
  const i = parts.findIndex((p) => p.files.some((f) => f.items.some((it) => it.node.id === id) || f.file.scopes.some((s) => s.id === id) || f.file.rootId === id));
  return i < 0 ? 1 : i + 1;
}

function cut(text: string): { text: string; cut: boolean } {
  if (text.length <= TREE_TEXT_CHARS) return { text, cut: false };
  return { text: text.slice(0, TREE_TEXT_CHARS), cut: true };
}

interface Ctx {
  urls: PageUrls;
  pkg: PackageRecord;
  v: VersionRecord;
}

function lines(n: { line_start?: number; line_end?: number }): string {
  if (n.line_start === undefined) return '';
  return n.line_end !== undefined && n.line_end !== n.line_start ? `L${n.line_start}–${n.line_end}` : `L${n.line_start}`;
}

function Item(p: { c: Ctx; item: TreeItem }) {
  const { node, depth } = p.item;
  const href = p.c.urls.node(p.c.pkg.namespace, p.c.pkg.name, p.c.v.version, node.id);
  const d = depth > 0 ? ` d${depth}` : '';
  if (node.type === 'section') {
    return (
      <div class={`item sec${d}`} id={nodeAnchor(node.id)}>
        <span class="text stitle">{node.content.split('\n', 1)[0]}</span>
        <a class="meta" href={href} title="this section's node">
          {lines(node) || 'node'} ↗
        </a>
      </div>
    );
  }
  const t = cut(readableText(node.content));
  return (
    <div class={`item ${nodeClass(node.type)}${d}`} id={nodeAnchor(node.id)}>
      <TypeBadge type={node.type} />
      <div class="text">
        {t.text}
        {t.cut ? (
          <>
            {'… '}
            <a href={href}>(full text)</a>
          </>
        ) : null}
      </div>
      <a class="meta" href={href} title="open this node: its text, metadata and edges">
        {lines(node) || 'node'} ↗
      </a>
    </div>
  );
}

function FileBlock(p: { c: Ctx; slice: TreePart['files'][number] }) {
  const { file, items, continued } = p.slice;
  return (
    <section class="file">
      <div class="fhead">
        <span class="path">{file.path ?? '(no source file)'}</span>
        {file.title !== null && file.title !== file.path ? <span class="title">{file.title}</span> : null}
        {continued ? <span class="muted small"> (continued)</span> : null}
        {file.scopes.length > 0 && !continued ? (
          <div class="scopes">
            Applies to files matching{' '}
            {file.scopes.map((s) => (
              <code>{s.content}</code>
            ))}
          </div>
        ) : null}
      </div>
      <div class="items">
        {items.length === 0 ? <p class="muted small">No nodes besides the file itself.</p> : items.map((item) => <Item c={p.c} item={item} />)}
      </div>
    </section>
  );
}

/**
 * One part of the tree rendered to markup (escaped by JSX like any page). It depends only on the
 * version and the part, not on the viewer, so the routes cache it beside the parsed version.
 */
export function renderTreePart(urls: PageUrls, pkg: PackageRecord, v: VersionRecord, part: TreePart): string {
  const c: Ctx = { urls, pkg, v };
  return String(
    <>
      {part.files.map((slice) => (
        <FileBlock c={c} slice={slice} />
      ))}
    </>,
  );
}

interface TrustEntry {
  check: string;
  result?: string;
  detail?: string;
  reason?: string;
}

/** The trust report's lists, taking only string fields of well-formed entries (it is stored JSON). */
export function trustLists(report: unknown): { checked: TrustEntry[]; notChecked: TrustEntry[] } {
  const list = (v: unknown): TrustEntry[] =>
    Array.isArray(v)
      ? v
          .filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null && typeof (e as Record<string, unknown>).check === 'string')
          .map((e) => ({
            check: String(e.check),
            result: typeof e.result === 'string' ? e.result : undefined,
            detail: typeof e.detail === 'string' ? e.detail : undefined,
            reason: typeof e.reason === 'string' ? e.reason : undefined,
          }))
      : [];
  const r = (typeof report === 'object' && report !== null ? report : {}) as Record<string, unknown>;
  return { checked: list(r.checked), notChecked: list(r.not_checked) };
}

function fingerprint(hex: string): string {
  try {
    return keyFingerprint(hex);
  } catch {
    return '(malformed key)';
  }
}

export interface PackagePageProps {
  urls: PageUrls;
  viewer: Viewer;
  pkg: PackageRecord;
  v: VersionRecord;
  /** Every version by descending SemVer precedence (yanked ones included). */
  versions: VersionRecord[];
  latest: string | null;
  content: VersionContent;
  dependents: DependentRecord[];
  keys: SignerKeyRecord[];
  parts: TreePart[];
  /** 1-based part shown. */
  part: number;
  /** `renderTreePart` of that part: markup JSX produced (and escaped), inserted as is. */
  treeHtml: string;
  /** Whether this page is the package's default URL (no version in the path). */
  isDefault: boolean;
}

export function PackagePage(p: PackagePageProps) {
  const { urls, pkg, v, content } = p;
  const full = `@${pkg.namespace}/${pkg.name}`;
  const here = p.isDefault ? urls.pkg(pkg.namespace, pkg.name) : urls.pkg(pkg.namespace, pkg.name, v.version);
  // A yanked version is not offered (ranges never pick it; npm shows a deprecation instead of a
  // plain install line): its page says so and offers the latest version instead, when there is one.
  const install = v.yanked ? (p.latest !== null ? `ctxpkg install ${full}` : null) : v.version === p.latest ? `ctxpkg install ${full}` : `ctxpkg install ${full}@${v.version}`;
  const previous = p.versions[p.versions.findIndex((x) => x.version === v.version) + 1];
  const trust = trustLists(v.trust_report);
  const m = content.manifest;
  const partQuery = (n: number) => (n === 1 ? '' : `?part=${n}`);
  const selfUrl = (n: number) => urls.pkg(pkg.namespace, pkg.name, p.isDefault ? undefined : v.version, partQuery(n));
  return (
    <Frame title={`${full}@${v.version}`} urls={urls} viewer={p.viewer} here={here}>
      <p class="crumbs">
        <a href={urls.ns(pkg.namespace)}>@{pkg.namespace}</a>
        <span class="sep">/</span>
        {pkg.name}
      </p>
      <h1>
        {full} <span class="pill">{v.version}</span> {v.version === p.latest ? <span class="pill latest">latest</span> : null}{' '}
        {v.yanked ? <span class="pill yanked">yanked</span> : null} {pkg.visibility === 'private' ? <span class="pill private">private</span> : null}
      </h1>
      <p>{v.description}</p>
      {v.yanked ? (
        <p class="notice warn" id="yanked-notice">
          This version was yanked <When at={v.yanked_at} />: installs no longer pick it, but projects that locked it still get these exact bytes.{' '}
          {p.latest !== null ? (
            <>
              Install the latest version, <a href={urls.pkg(pkg.namespace, pkg.name, p.latest)}>{p.latest}</a>, instead:
            </>
          ) : (
            <>Every version of this package is yanked: there is nothing to install.</>
          )}
        </p>
      ) : null}
      {install !== null ? (
        <div class="install">
          <code id="install-cmd">{install}</code>
          <button type="button" data-copy="install-cmd" hidden>
            Copy
          </button>
        </div>
      ) : null}
      <nav class="nav">
        <a href={`${here}#content`}>Content</a>
        <a href={urls.graph(pkg.namespace, pkg.name, v.version)}>Knowledge graph</a>
        {previous ? <a href={urls.diff(pkg.namespace, pkg.name, previous.version, v.version)}>Changes since {previous.version}</a> : null}
        {pkg.visibility === 'public' ? (
          <a href={urls.download(pkg.namespace, pkg.name, v.version)}>Download .ctxpkg</a>
        ) : null}
      </nav>
      <div class="grid">
        <section>
          <h2>Node types</h2>
          <div class="types">
            {content.counts.map((t) => (
              <span>
                <span class={`swatch ${nodeClass(t.type)}`}></span>
                {t.type} <b>{t.count}</b>
              </span>
            ))}
            <span class="muted">
              {plural(content.graph.nodes.length, 'node')} · {plural(content.graph.edges.length, 'edge')}
            </span>
          </div>
          <h2 id="content">Content</h2>
          {p.parts.length > 1 ? (
            <p class="pager">
              Part {p.part} of {p.parts.length}
              {p.part > 1 ? <a href={selfUrl(p.part - 1)}>← previous part</a> : null}
              {p.part < p.parts.length ? <a href={selfUrl(p.part + 1)}>next part →</a> : null}
            </p>
          ) : null}
          {content.graph.nodes.length === 0 ? <p class="muted">This package has no nodes.</p> : null}
          {/* Already-rendered JSX output (renderTreePart), never package text: inserting it unescaped is safe. */}
          {raw(p.treeHtml)}
          {p.parts.length > 1 && p.part < p.parts.length ? (
            <p class="pager">
              <a href={selfUrl(p.part + 1)}>Next part ({p.part + 1} of {p.parts.length}) →</a>
            </p>
          ) : null}
        </section>
        <aside class="side">
          <h2>Versions</h2>
          <ul class="plain small">
            {p.versions.map((x, i) => {
              const prev = p.versions[i + 1];
              return (
                <li>
                  {x.version === v.version ? <b>{x.version}</b> : <a href={urls.pkg(pkg.namespace, pkg.name, x.version)}>{x.version}</a>}{' '}
                  {x.version === p.latest ? <span class="pill latest">latest</span> : null} {x.yanked ? <span class="pill yanked">yanked</span> : null}{' '}
                  <span class="muted">
                    <When at={x.published_at} />
                  </span>
                  {prev ? (
                    <>
                      {' · '}
                      <a href={urls.diff(pkg.namespace, pkg.name, prev.version, x.version)}>changes</a>
                    </>
                  ) : null}
                </li>
              );
            })}
          </ul>
          <h2>Dependencies</h2>
          {v.dependencies.length === 0 ? (
            <p class="muted small">None.</p>
          ) : (
            <ul class="plain small">
              {v.dependencies.map((d) => {
                const href = urls.pkgByName(d.name);
                return (
                  <li>
                    {href ? <a href={href}>{d.name}</a> : d.name} <code>{d.version_req}</code> {d.optional ? <span class="pill">optional</span> : null}
                  </li>
                );
              })}
            </ul>
          )}
          <h2>Dependents</h2>
          {p.dependents.length === 0 ? (
            <p class="muted small">No package you can see depends on {full}.</p>
          ) : (
            <ul class="plain small">
              {p.dependents.map((d) => (
                <li>
                  <a href={urls.pkg(d.namespace, d.name)}>
                    @{d.namespace}/{d.name}
                  </a>{' '}
                  {d.version} <code>{d.version_req}</code>
                </li>
              ))}
            </ul>
          )}
          <h2>Signature</h2>
          <dl class="facts small">
            <dt>Signed by</dt>
            <dd>
              <b class="key">{fingerprint(v.signer_public_key)}</b>
              <div class="key muted">{v.signer_public_key}</div>
            </dd>
            <dt>Namespace keys</dt>
            <dd>
              {p.keys.length === 0 ? <span class="muted">none</span> : null}
              {p.keys.map((k) => (
                <div>
                  <span class="key">{fingerprint(k.public_key)}</span>{' '}
                  {k.revoked_at !== null ? <span class="pill yanked">revoked</span> : <span class="pill pass">active</span>}{' '}
                  <span class="muted">{k.added_by === 'first-publish' ? 'first publish' : k.added_by === 'owner' ? 'added by an owner' : 'added by an admin'}</span>
                </div>
              ))}
            </dd>
          </dl>
          <h2>Trust report</h2>
          <p class="muted small">What the registry verified when this version was published — and what it did not.</p>
          <ul class="plain small">
            {trust.checked.map((t) => (
              <li>
                <span class="pill pass">{t.result ?? 'checked'}</span> <b>{t.check}</b>
                {t.detail !== undefined ? <div class="muted">{t.detail}</div> : null}
              </li>
            ))}
            {trust.notChecked.map((t) => (
              <li>
                <span class="pill skip">not checked</span> <b>{t.check}</b>
                {t.reason !== undefined ? <div class="muted">{t.reason}</div> : null}
              </li>
            ))}
          </ul>
          <h2>Details</h2>
          <dl class="facts small">
            <dt>Published</dt>
            <dd>
              <When at={v.published_at} />
            </dd>
            <dt>Size</dt>
            <dd>
              {bytesText(v.size_bytes)} ({content.form === 'zip' ? 'ZIP form' : 'JSON bundle'})
            </dd>
            <dt>Artifact</dt>
            <dd class="key">sha256:{v.artifact_sha256}</dd>
            <dt>Integrity</dt>
            <dd class="key">sha256:{v.integrity_sha256}</dd>
            {m.author ? (
              <>
                <dt>Author</dt>
                <dd>{m.author}</dd>
              </>
            ) : null}
            {m.scope ? (
              <>
                <dt>Scope</dt>
                <dd>
                  <code>{m.scope}</code>
                </dd>
              </>
            ) : null}
            {v.tags.length > 0 ? (
              <>
                <dt>Tags</dt>
                <dd>
                  {v.tags.map((t) => (
                    <>
                      <span class="pill">{t}</span>{' '}
                    </>
                  ))}
                </dd>
              </>
            ) : null}
            <dt>Created with</dt>
            <dd>
              {m.provenance?.tool ?? 'unknown'} {m.provenance?.tool_version ?? ''}
            </dd>
          </dl>
        </aside>
      </div>
    </Frame>
  );
}
