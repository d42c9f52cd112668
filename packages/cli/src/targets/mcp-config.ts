/**
 * Registering the ctxpkg MCP server in an agent's project MCP config file (`.mcp.json`,
 * `.cursor/mcp.json`, `.vscode/mcp.json`, `.gemini/settings.json`, `.kiro/settings/mcp.json`;
 * spec/pack.md §11 "MCP servers"). Pure string functions: text in, text out.
 *
 * Edits are made in the text, never by re-serializing the document: the one entry
 * `"<key>": { …, "ctxpkg": <entry> }` is inserted as a single run of characters at one place
 * (after the last server, or into an empty or absent servers object), in the file's own
 * indentation, line ends and style (a one-line file gets a one-line entry), so every other byte —
 * comments (JSONC), other servers, key order, trailing commas — stays as it was. `inserted` is
 * that run; cutting it out again gives the original bytes back (install → uninstall is
 * byte-identical). Without the run (a fresh clone, where `.ctxpkg/sync.json` is absent) the
 * original is found as the text whose insertion gives the file — else the entry alone is cut.
 *
 * Parsing is jsonc-parser's scanner (linear; offsets of every node): `json` files must be strict
 * JSON, `jsonc` files (VS Code) may hold comments and trailing commas. Anything else throws
 * `E_INVALID_JSON` naming the file, line and column, before anything is written.
 */
import { CtxpkgError } from '@ctxpkg/format/errors';
import type { Node, ParseError } from 'jsonc-parser';
import { jsoncLib } from '../lazy-libs.js';

/** The server name ctxpkg registers. */
export const MCP_SERVER_NAME = 'ctxpkg';

/** How a config file is parsed: strict JSON, or JSON with comments and trailing commas. */
export type McpFormat = 'json' | 'jsonc';

/** Where in a file the entry goes: the object `key` at the top level (`mcpServers`, `servers`). */
export interface McpSlot {
  format: McpFormat;
  key: string;
}

/** The state of the ctxpkg entry in a file. */
export type McpEntryState =
  | { kind: 'absent' }
  /**
   * The servers object exists but is not an object (`"mcpServers": null`), or the servers key or
   * the `ctxpkg` entry appears more than once (hosts keep the last; cutting one would make another
   * live under a name the user approved): nothing is added, kept or removed. `fix`: what lets sync in.
   */
  | { kind: 'blocked'; what: string; fix: string }
  | { kind: 'present'; value: unknown };

/** JSON text of `v` with object keys sorted (to compare entries by value). */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** Line and column (1-based) of `offset`. */
function lineCol(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

/**
 * The root object of `text`, or `undefined` for a file with nothing but white space. Throws
 * `E_INVALID_JSON` (details: path, line, column) when it is not valid for `format` or not an
 * object.
 */
export function parseMcpConfig(text: string, format: McpFormat, path: string): Node | undefined {
  if (text.trim() === '') return undefined;
  // A byte order mark (editors on Windows save one; VS Code reads such a file) reads as a space
  // in JSONC: the same length, so every offset into `text` stays right and the mark is kept.
  if (format === 'jsonc' && text.charCodeAt(0) === 0xfeff) text = ' ' + text.slice(1);
  tooDeep(text, format, path);
  const errors: ParseError[] = [];
  const root = jsoncLib().parseTree(text, errors, { disallowComments: format === 'json', allowTrailingComma: format === 'jsonc', allowEmptyContent: false });
  const first = errors[0];
  const kind = format === 'json' ? 'JSON' : 'JSON with comments';
  if (first !== undefined || root === undefined) {
    const at = lineCol(text, first?.offset ?? 0);
    throw new CtxpkgError('E_INVALID_JSON', `${path} is not valid ${kind} (${first ? jsoncLib().printParseErrorCode(first.error) : 'no value'} at line ${at.line}, column ${at.column}); ctxpkg sync did not register its MCP server and wrote nothing`, {
      hint: `fix ${path} (or move it away) and run \`ctxpkg sync\` again`,
      details: { path, line: at.line, column: at.column, error: first ? jsoncLib().printParseErrorCode(first.error) : 'empty' },
    });
  }
  if (root.type !== 'object') {
    throw new CtxpkgError('E_INVALID_JSON', `${path} must hold a JSON object (it holds ${root.type === 'array' ? 'an array' : `a ${root.type}`}); ctxpkg sync did not register its MCP server and wrote nothing`, {
      hint: `fix ${path} (or move it away) and run \`ctxpkg sync\` again`,
      details: { path, line: 1, column: 1, error: 'NotAnObject' },
    });
  }
  return root;
}

/**
 * MCP config files larger than this (bytes) are left alone, neither read nor edited: real ones
 * are a few KiB, and the tree parser holds an object per value (a committed 100 MB file of
 * numbers ran the process out of memory).
 */
export const MAX_MCP_CONFIG_BYTES = 1024 * 1024;

/** Arrays and objects nested deeper than this are refused (the tree parser recurses per level). */
export const MAX_MCP_DEPTH = 256;

/**
 * Throws `E_INVALID_JSON` (line, column of the opening bracket) when `text` nests arrays and
 * objects deeper than `MAX_MCP_DEPTH`: one linear pass of the scanner, before the recursive
 * tree parser would overflow the stack on a hostile file (`[` × 100,000).
 */
function tooDeep(text: string, format: McpFormat, path: string): void {
  // jsonc-parser's `SyntaxKind` is a const enum (not importable under isolatedModules): its values.
  const SyntaxKind = { OpenBraceToken: 1, CloseBraceToken: 2, OpenBracketToken: 3, CloseBracketToken: 4, EOF: 17 } as const;
  const sc = jsoncLib().createScanner(text, false);
  let depth = 0;
  for (let k = sc.scan(); k !== SyntaxKind.EOF; k = sc.scan()) {
    if (k === SyntaxKind.OpenBraceToken || k === SyntaxKind.OpenBracketToken) {
      if (++depth > MAX_MCP_DEPTH) {
        const at = lineCol(text, sc.getTokenOffset());
        throw new CtxpkgError('E_INVALID_JSON', `${path} is not valid ${format === 'json' ? 'JSON' : 'JSON with comments'} for ctxpkg (nested deeper than ${MAX_MCP_DEPTH} levels at line ${at.line}, column ${at.column}); ctxpkg sync did not register its MCP server and wrote nothing`, {
          hint: `fix ${path} (or move it away) and run \`ctxpkg sync\` again`,
          details: { path, line: at.line, column: at.column, error: 'TooDeep' },
        });
      }
    } else if (k === SyntaxKind.CloseBraceToken || k === SyntaxKind.CloseBracketToken) depth = Math.max(0, depth - 1);
  }
}

/** True when `text` holds a comment (line or block comment, outside strings): text of the user's that a value comparison does not see. */
export function hasComment(text: string): boolean {
  const sc = jsoncLib().createScanner(text, false);
  // SyntaxKind.LineCommentTrivia, BlockCommentTrivia, EOF (a const enum: see `tooDeep`).
  for (let k = sc.scan(); k !== 17; k = sc.scan()) if (k === 12 || k === 13) return true;
  return false;
}

/** How many properties of object node `obj` are named `name`. */
function count(obj: Node, name: string): number {
  let n = 0;
  for (const p of obj.children ?? []) if (p.children?.[0]?.value === name) n++;
  return n;
}

/** The last property `name` of object node `obj` (JSON.parse keeps the last of duplicates). */
function prop(obj: Node, name: string): Node | undefined {
  const props = obj.children ?? [];
  for (let i = props.length - 1; i >= 0; i--) if (props[i]?.children?.[0]?.value === name) return props[i];
  return undefined;
}

const valueOf = (p: Node): Node => p.children?.[1] as Node;

/** The state of the ctxpkg entry in `text` (throws like `parseMcpConfig`). */
export function mcpEntryState(text: string | undefined, slot: McpSlot, path: string): McpEntryState {
  const root = text === undefined ? undefined : parseMcpConfig(text, slot.format, path);
  const c = root && prop(root, slot.key);
  if (!c) return { kind: 'absent' };
  if (count(root as Node, slot.key) > 1) return { kind: 'blocked', what: `"${slot.key}" appears more than once`, fix: `merge them into one to let sync manage its entry` };
  if (valueOf(c).type !== 'object') return { kind: 'blocked', what: `"${slot.key}" is not an object`, fix: 'make it an object to let sync add it' };
  if (count(valueOf(c), MCP_SERVER_NAME) > 1) return { kind: 'blocked', what: `"${slot.key}" holds more than one "${MCP_SERVER_NAME}" entry (an agent runs the last one)`, fix: `keep one of them to let sync manage it` };
  const p = prop(valueOf(c), MCP_SERVER_NAME);
  return p ? { kind: 'present', value: jsoncLib().getNodeValue(valueOf(p)) } : { kind: 'absent' };
}

/** The white space before `offset` when nothing else precedes it on its line; else `undefined`. */
function lineIndent(text: string, offset: number): string | undefined {
  let i = offset;
  while (i > 0 && (text[i - 1] === ' ' || text[i - 1] === '\t')) i--;
  return i === 0 || text[i - 1] === '\n' ? text.slice(i, offset) : undefined;
}

/** `value` as JSON: pretty at `indent` with `unit` per level, or on one line (`unit` undefined). */
function render(value: unknown, indent: string, unit: string | undefined, eol: string): string {
  if (unit === undefined) return JSON.stringify(value);
  return JSON.stringify(value, null, unit).split('\n').join(eol + indent);
}

/** `"name": value` inserted into object node `obj` (whose own line starts with `objIndent`). */
function insertInto(text: string, obj: Node, objIndent: string, name: string, value: unknown, unitHint: string, eol: string): { text: string; inserted: string; at: number } {
  const props = obj.children ?? [];
  const last = props[props.length - 1];
  const key = JSON.stringify(name);
  if (last !== undefined) {
    const ci = lineIndent(text, last.offset);
    const unit = ci === undefined ? undefined : ci.startsWith(objIndent) && ci.length > objIndent.length ? ci.slice(objIndent.length) : unitHint;
    const end = last.offset + last.length;
    // A trailing comma after the last server (JSONC), maybe followed by a comment on its line:
    // the entry goes on the next line, so the comment stays with the server it was written for.
    const tail = ci === undefined ? null : /^[ \t]*,([ \t]*\/\/[^\r\n]*|[ \t]*\/\*[^\r\n]*?\*\/)?[ \t]*(?=\r?\n)/.exec(text.slice(end, end + 4096));
    const inserted = ci === undefined ? `,${key}:${render(value, '', undefined, eol)}` : `${tail ? '' : ','}${eol}${ci}${key}: ${render(value, ci, unit, eol)}`;
    const at = tail ? end + tail[0].length : end;
    return { text: text.slice(0, at) + inserted + text.slice(at), inserted, at };
  }
  // An empty object: insert right after its `{`.
  const at = obj.offset + 1;
  const interior = text.slice(at, obj.offset + obj.length - 1);
  const ci = objIndent + unitHint;
  const entry = `${key}: ${render(value, ci, unitHint, eol)}`;
  const inserted = interior.trim() !== '' || interior.includes('\n') ? `${eol}${ci}${entry}` : `${eol}${ci}${entry}${eol}${objIndent}`;
  return { text: text.slice(0, at) + inserted + text.slice(at), inserted, at };
}

/** The file's line end and indentation unit (of its first top-level property; two spaces when unknown). */
function styleOf(text: string, root: Node | undefined): { eol: string; unit: string } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const first = root?.children?.[0];
  const ind = first ? lineIndent(text, first.offset) : undefined;
  return { eol, unit: ind !== undefined && ind !== '' ? ind : '  ' };
}

/**
 * `text` (`undefined`: no file) with the ctxpkg entry `value` added to `slot.key`, which must not
 * hold one (`mcpEntryState` is `absent`). Returns the new text and the run of characters
 * inserted. Throws like `parseMcpConfig`.
 */
export function insertMcpEntry(text: string | undefined, slot: McpSlot, value: unknown, path: string): { text: string; inserted: string } {
  const root = text === undefined ? undefined : parseMcpConfig(text, slot.format, path);
  if (text === undefined || root === undefined) {
    const doc = render({ [slot.key]: { [MCP_SERVER_NAME]: value } }, '', '  ', '\n') + '\n';
    return { text: (text ?? '') + doc, inserted: doc };
  }
  const { eol, unit } = styleOf(text, root);
  const c = prop(root, slot.key);
  if (c) {
    const objIndent = lineIndent(text, c.offset) ?? '';
    const r = insertInto(text, valueOf(c), objIndent, MCP_SERVER_NAME, value, unit, eol);
    return { text: r.text, inserted: r.inserted };
  }
  const r = insertInto(text, root, lineIndent(text, root.offset) ?? '', slot.key, { [MCP_SERVER_NAME]: value }, unit, eol);
  return { text: r.text, inserted: r.inserted };
}

/** `text` without the property node `p` of object `obj` (and the separator between it and its neighbour). */
function cutProperty(text: string, obj: Node, p: Node): string {
  const props = obj.children ?? [];
  const i = props.indexOf(p);
  const prev = props[i - 1];
  const next = props[i + 1];
  if (prev) return text.slice(0, prev.offset + prev.length) + text.slice(p.offset + p.length);
  if (next) return text.slice(0, p.offset) + text.slice(next.offset);
  // The only property: also drop a trailing comma after it (JSONC).
  let end = p.offset + p.length;
  const m = /^\s*,/.exec(text.slice(end, end + 64));
  if (m) end += m[0].length;
  return text.slice(0, obj.offset + 1) + text.slice(end);
}

/**
 * `text` without the ctxpkg entry: `inserted` (what `insertMcpEntry` added, from the sync record)
 * cut out when it is still there around the entry — the original bytes; else (no record) the
 * text whose insertion gives `text` (the servers object too when it holds nothing else, the whole
 * file when it is nothing else: then `''`); else the entry alone with its separator. `text` when
 * there is no entry. Throws like `parseMcpConfig`.
 */
export function removeMcpEntry(text: string, slot: McpSlot, value: unknown, path: string, inserted?: string): string {
  const root = parseMcpConfig(text, slot.format, path);
  const c = root && prop(root, slot.key);
  const servers = c && valueOf(c).type === 'object' ? valueOf(c) : undefined;
  const p = servers && prop(servers, MCP_SERVER_NAME);
  if (!root || !c || !servers || !p) return text;
  // A cut is taken only when what is left is a valid file without the entry (the user may have
  // added a server after ours: then the comma before ours belongs to theirs).
  const clean = (base: string): boolean => {
    try {
      return mcpEntryState(base.trim() === '' ? undefined : base, slot, path).kind === 'absent';
    } catch {
      return false;
    }
  };
  // The recorded run (`.ctxpkg/sync.json` is not sealed: a repository can commit one) is cut only
  // where it covers the entry, and only when what it takes is nothing but the entry (and the
  // servers object when that held nothing else): never a server or setting of the user's.
  if (inserted && inserted.length <= MAX_INSERTED_CHARS) {
    const entryEnd = p.offset + p.length;
    const lo = Math.max(0, entryEnd - inserted.length);
    // Only starts in [lo, p.offset] can cover the entry: search that window alone (bounded work).
    const rel = text.slice(lo, p.offset + inserted.length).lastIndexOf(inserted);
    const i = rel < 0 ? -1 : lo + rel;
    if (i >= 0 && i <= p.offset && i + inserted.length >= entryEnd) {
      const base = text.slice(0, i) + text.slice(i + inserted.length);
      if (clean(base) && takesOnlyEntry(text, base, slot, path)) return base;
    }
  }
  const candidates: string[] = [];
  const doc = insertMcpEntry(undefined, slot, value, path).text;
  if (text.endsWith(doc) && text.slice(0, text.length - doc.length).trim() === '') candidates.push(text.slice(0, text.length - doc.length));
  // An object that was empty on one line (`{}`, `{ }`): its entry went in with a line break and
  // the object's indentation after it; tried before the plain cut, so `{}` does not come back as
  // `{\n}` (both give the same text, and `{}` is how such an object is written). A servers
  // object is first assumed absent (sync added it), as before.
  const compact = (obj: Node, q: Node): void => {
    const end = q.offset + q.length;
    const m = /^\r?\n[ \t]*/.exec(text.slice(end, end + 256));
    if (m) candidates.push(text.slice(0, obj.offset + 1) + text.slice(end + m[0].length));
  };
  if ((servers.children ?? []).length === 1) {
    if ((root.children ?? []).length === 1) compact(root, c);
    candidates.push(cutProperty(text, root, c));
    compact(servers, p);
  }
  const alone = cutProperty(text, servers, p);
  // The entry on a line of its own after a server's trailing comma (and comment): cut its line.
  const ind = lineIndent(text, p.offset);
  if (ind !== undefined) {
    const lineStart = p.offset - ind.length;
    const eolLen = text.slice(0, lineStart).endsWith('\r\n') ? 2 : 1;
    if (lineStart >= eolLen) candidates.push(text.slice(0, lineStart - eolLen) + text.slice(p.offset + p.length));
  }
  candidates.push(alone);
  for (const base of candidates) {
    try {
      if (insertMcpEntry(base, slot, value, path).text === text) return base;
    } catch {
      /* not a parseable base */
    }
  }
  return alone;
}

/** The longest run sync inserts that a removal will cut as recorded (an entry is a few hundred characters). */
export const MAX_INSERTED_CHARS = 4096;

/**
 * True when `base` is `text` without its ctxpkg entry and nothing else, by value: the servers
 * object minus the entry, or (when the entry was all it held) the document without the servers
 * key; `''` only when that leaves an empty document.
 */
function takesOnlyEntry(text: string, base: string, slot: McpSlot, path: string): boolean {
  try {
    const root = parseMcpConfig(text, slot.format, path);
    const want = (root ? jsoncLib().getNodeValue(root) : {}) as Record<string, unknown>;
    const servers = want[slot.key] as Record<string, unknown>;
    delete servers[MCP_SERVER_NAME];
    const baseRoot = base.trim() === '' ? undefined : parseMcpConfig(base, slot.format, path);
    const have = canonicalJson(baseRoot ? jsoncLib().getNodeValue(baseRoot) : {});
    if (have === canonicalJson(want)) return true;
    if (Object.keys(servers).length > 0) return false;
    delete want[slot.key];
    return have === canonicalJson(want) && (baseRoot !== undefined || Object.keys(want).length === 0);
  } catch {
    return false;
  }
}

/** True when `text` holds nothing but the ctxpkg entry (`{"<key>": {"ctxpkg": …}}`, any layout). */
export function onlyMcpEntry(text: string, slot: McpSlot, path: string): boolean {
  let root: Node | undefined;
  try {
    root = parseMcpConfig(text, slot.format, path);
  } catch {
    return false;
  }
  const props = root?.children ?? [];
  const c = props[0];
  if (props.length !== 1 || !c || c.children?.[0]?.value !== slot.key || valueOf(c).type !== 'object') return false;
  const inner = valueOf(c).children ?? [];
  return inner.length === 1 && inner[0]?.children?.[0]?.value === MCP_SERVER_NAME;
}
