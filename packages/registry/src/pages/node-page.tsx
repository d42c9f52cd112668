/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
/**
 * The node page: one node of one version — its full text, where it sits (file, lines, heading
 * path), its metadata, and its edges in both directions, each linking to the node at the other end.
 */
import type { ContextEdge, ContextNode } from '@ctxpkg/format';
import type { PackageRecord, VersionRecord } from '../store/types.js';
import { TypeBadge } from './common.js';
import type { VersionContent } from './content.js';
import { shortText } from './graph-layout.js';
import { Frame, type PageUrls, type Viewer } from './layout.js';
import { edgeClass, nodeClass } from './palette.js';

export interface NodePageProps {
  urls: PageUrls;
  viewer: Viewer;
  pkg: PackageRecord;
  v: VersionRecord;
  content: VersionContent;
  node: ContextNode;
  /** Link to the node in the package page's tree. */
  treeHref: string;
  /** Link to the graph picture that draws this node. */
  graphHref: string;
  /** The version before this one, for "what changed". */
  previous: string | undefined;
}

function EdgeList(p: { edges: ContextEdge[]; dir: 'out' | 'in'; link: (id: string) => string; byId: Map<string, ContextNode> }) {
  if (p.edges.length === 0) return <p class="muted small">None.</p>;
  return (
    <ul class="plain small">
      {p.edges.map((e) => {
        const other = p.dir === 'out' ? e.to : e.from;
        const n = p.byId.get(other);
        return (
          <li>
            <span class={`eswatch ${edgeClass(e.type)}`}></span>
            <b>{e.type}</b> {p.dir === 'out' ? '→' : '←'}{' '}
            {n ? (
              <>
                <TypeBadge type={n.type} /> <a href={p.link(other)}>{shortText(n.content, 90)}</a>
              </>
            ) : (
              <span class="mono" title="not a node of this package (a qualified reference to another package)">
                {other}
              </span>
            )}
            {e.weight !== 1 ? <span class="muted"> · weight {String(e.weight)}</span> : null}
            {e.metadata !== undefined ? <div class="muted">{e.metadata}</div> : null}
          </li>
        );
      })}
    </ul>
  );
}

export function NodePage(p: NodePageProps) {
  const { urls, pkg, v, node, content } = p;
  const full = `@${pkg.namespace}/${pkg.name}`;
  const item = content.items.get(node.id);
  const link = (id: string) => urls.node(pkg.namespace, pkg.name, v.version, id);
  const out = content.graph.edges.filter((e) => e.from === node.id);
  const inc = content.graph.edges.filter((e) => e.to === node.id);
  const facts: Array<[string, string]> = [];
  if (node.category !== undefined) facts.push(['Category', node.category]);
  if (node.confidence !== undefined) facts.push(['Confidence', String(node.confidence)]);
  facts.push(['Activation', String(node.activation)]);
  if (node.created_at !== undefined) facts.push(['Created', node.created_at]);
  if (node.decay_half_life_days !== undefined) facts.push(['Half-life', `${node.decay_half_life_days} days`]);
  if (node.source !== undefined) facts.push(['Source', node.source]);
  if (node.blob_ref !== undefined) facts.push(['Blob', node.blob_ref]);
  return (
    <Frame title={`${shortText(node.content, 60)} · ${full}@${v.version}`} urls={urls} viewer={p.viewer} here={link(node.id)}>
      <p class="crumbs">
        <a href={urls.ns(pkg.namespace)}>@{pkg.namespace}</a>
        <span class="sep">/</span>
        <a href={urls.pkg(pkg.namespace, pkg.name, v.version)}>
          {pkg.name} {v.version}
        </a>
        {node.file_path !== undefined ? (
          <>
            <span class="sep">/</span>
            {node.file_path}
          </>
        ) : null}
        {(item?.headingPath ?? []).map((h) => (
          <>
            <span class="sep">›</span>
            {h}
          </>
        ))}
      </p>
      <h1 class="node">
        <TypeBadge type={node.type} /> {shortText(node.content, 90)}
      </h1>
      <nav class="nav">
        <a href={p.treeHref}>Show in content</a>
        <a href={p.graphHref}>Show in graph</a>
        {p.previous !== undefined ? <a href={urls.diff(pkg.namespace, pkg.name, p.previous, v.version)}>Changes since {p.previous}</a> : null}
      </nav>
      <pre class={`content ${nodeClass(node.type)}`}>{node.content}</pre>
      <div class="grid">
        <section>
          <h2>Edges from this node</h2>
          <EdgeList edges={out} dir="out" link={link} byId={content.byId} />
          <h2>Edges to this node</h2>
          <EdgeList edges={inc} dir="in" link={link} byId={content.byId} />
        </section>
        <aside class="side">
          <h2>Node</h2>
          <dl class="facts small">
            <dt>Id</dt>
            <dd class="mono">{node.id}</dd>
            <dt>Type</dt>
            <dd>{node.type}</dd>
            {node.file_path !== undefined ? (
              <>
                <dt>File</dt>
                <dd class="mono">
                  {node.file_path}
                  {node.line_start !== undefined ? `:${node.line_start}${node.line_end !== undefined && node.line_end !== node.line_start ? `–${node.line_end}` : ''}` : ''}
                </dd>
              </>
            ) : null}
            {node.supersedes !== undefined ? (
              <>
                <dt>Supersedes</dt>
                <dd class="mono">{content.byId.has(node.supersedes) ? <a href={link(node.supersedes)}>{node.supersedes}</a> : node.supersedes}</dd>
              </>
            ) : null}
            {facts.map(([k, val]) => (
              <>
                <dt>{k}</dt>
                <dd class="mono">{val}</dd>
              </>
            ))}
          </dl>
        </aside>
      </div>
    </Frame>
  );
}
