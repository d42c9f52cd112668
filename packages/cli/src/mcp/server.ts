/**
 * `ctxpkg mcp`: a read-only MCP server over stdio (@modelcontextprotocol/sdk) serving the
 * installed context (spec/pack.md §12). Loaded lazily by the `mcp` command only, so ordinary
 * commands never load the SDK.
 *
 * Tools (all annotated read-only, each with an `outputSchema` its `structuredContent` meets, and
 * the same content as compact text): `search_context(query, limit?, max_bytes?)`,
 * `get_node(id, max_bytes?)`, `get_section(section | path, package?, file?, max_bytes?)`,
 * `neighbors(id, depth?, max_bytes?)`, `render_pack(focus?, max_bytes?)`. Resources:
 * `ctxpkg://packages` (the list) and `ctxpkg://package/{name}` (one package's pack; `name`
 * URI-encoded; an unknown package is the JSON-RPC error -32002 "resource not found").
 *
 * Project: `--project <dir>`, else the first MCP root (the host's workspace folders) that lies in
 * a project, else the working directory. Outside any project the server still answers
 * `initialize`; each tool result is then the error (`isError`, `error E_NOT_FOUND: …`) and the
 * problem is written once to stderr. When the installed set changes during a session (an install
 * in another terminal), the server sends `notifications/resources/list_changed`.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isCtxpkgError } from '@ctxpkg/format/errors';
import type { CliDeps } from '../deps.js';
import { findProjectRoot } from '../project.js';
import { CLI_VERSION } from '../version.js';
import { nodeOutput, neighborsOutput, packOutput, searchOutput, sectionOutput } from './schemas.js';
import { projectStamp, stateLoader, type McpState } from './state.js';
import {
  DEFAULT_ANSWER_BYTES,
  DEFAULT_DOCUMENT_BYTES,
  DEFAULT_LIMIT,
  getNode,
  getSection,
  MAX_ANSWER_BYTES,
  MAX_LIMIT,
  neighbors,
  packageList,
  packageResource,
  packageUri,
  renderPack,
  searchContext,
  type ToolAnswer,
} from './tools.js';

/** JSON-RPC error code of MCP for a resource that does not exist. */
export const RESOURCE_NOT_FOUND = -32002;
/** JSON-RPC internal error (the project cannot be served). */
const INTERNAL_ERROR = -32603;

/**
 * A JSON-RPC error for a request handler: the SDK sends `code` and `message` as they are. (The
 * SDK's own McpError prefixes its message with "MCP error <code>:", which the client prefixes
 * again: the host would show the code twice.)
 */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

type ToolResult = { content: Array<{ type: 'text'; text: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };

/** `error E_CODE: message` (+ hint) for a failed call. */
function errorText(err: unknown): string {
  return isCtxpkgError(err) ? `error ${err.code}: ${err.message}${err.hint ? `\nhint: ${err.hint}` : ''}` : `error E_INTERNAL: ${(err as Error).message}`;
}

function run(load: () => McpState, fn: (s: McpState) => ToolAnswer): ToolResult {
  try {
    const a = fn(load());
    return { content: [{ type: 'text', text: a.text }], structuredContent: a.structured };
  } catch (err) {
    return { content: [{ type: 'text', text: errorText(err) }], isError: true };
  }
}

const budget = (def: number) => z.number().int().positive().max(MAX_ANSWER_BYTES).optional().describe(`answer budget in UTF-8 bytes of the text (default ${def}, at most ${MAX_ANSWER_BYTES})`);
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export interface McpOptions {
  /** `--project <dir>`: look the project up from here (relative to `cwd`), ignoring roots. */
  project?: string;
  /** How often to check whether the installed set changed (ms; default 1000). */
  pollMs?: number;
}

/** Build the server (not yet connected); its timer ends when it closes. */
export function createMcpServer(deps: Pick<CliDeps, 'cwd' | 'clock'> & Partial<Pick<CliDeps, 'env' | 'homeDir' | 'stderr'>>, opts: McpOptions = {}): McpServer {
  let rootsDir: string | undefined;
  const dir = (): string => (opts.project !== undefined ? resolve(deps.cwd, opts.project) : rootsDir ?? deps.cwd);
  const load = stateLoader(deps, dir);
  const server = new McpServer({ name: 'ctxpkg', version: CLI_VERSION }, { capabilities: { tools: {}, resources: { listChanged: true } } });

  /** The installed set (`name@version`, sorted) or `''` when there is no usable project. */
  const installedSet = (): string => {
    try {
      return load()
        .project.graph.inputs.map((i) => `${i.package}@${i.version}`)
        .sort()
        .join(',');
    } catch {
      return '';
    }
  };
  let lastStamp = '';
  let lastSet = '';
  const checkForChange = (notify: boolean): void => {
    const { root, exists } = findProjectRoot(dir());
    const s = exists ? projectStamp(root) : `none:${dir()}`;
    if (s === lastStamp) return;
    lastStamp = s;
    const set = installedSet();
    if (set !== lastSet) {
      lastSet = set;
      if (notify) void server.sendResourceListChanged();
    }
  };

  /** Pick the project from the client's roots (when it has them and no --project was given). */
  const useRoots = async (): Promise<void> => {
    if (opts.project !== undefined || !server.server.getClientCapabilities()?.roots) return;
    try {
      const { roots } = await server.server.listRoots();
      rootsDir = undefined;
      for (const r of roots) {
        if (!r.uri.startsWith('file:')) continue;
        const path = fileURLToPath(r.uri);
        if (findProjectRoot(path).exists) {
          rootsDir = path;
          break;
        }
      }
    } catch {
      // a client that fails roots/list: keep the working directory
    }
  };

  let timer: ReturnType<typeof setInterval> | undefined;
  server.server.oninitialized = () => {
    void (async () => {
      await useRoots();
      try {
        // Build the term index while the client is idle after the handshake; otherwise the
        // first search_context would pay for it.
        load().index.terms();
      } catch (err) {
        deps.stderr?.write(`ctxpkg mcp: ${errorText(err)}\n(the tools answer with this error until it is fixed)\n`);
      }
      checkForChange(false);
      timer = setInterval(() => checkForChange(true), opts.pollMs ?? 1000);
      timer.unref?.();
    })();
  };
  server.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    await useRoots();
    checkForChange(true);
  });

  server.registerTool(
    'search_context',
    {
      title: 'Search installed context',
      description:
        `The installed context (rules, gotchas, conventions) that best matches a question, identifier, path or flag: the top ${DEFAULT_LIMIT} hits (limit up to ${MAX_LIMIT}), each with package@version, source file and lines, heading path, score, trust tier and its text (the matching part of a long node).`,
      inputSchema: {
        query: z.string().min(1).max(1000).describe('words, identifiers, file names or flags to look for'),
        limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`hits to return (default ${DEFAULT_LIMIT})`),
        max_bytes: budget(DEFAULT_ANSWER_BYTES),
      },
      outputSchema: searchOutput,
      annotations: READ_ONLY,
    },
    async ({ query, limit, max_bytes }) => run(load, (s) => searchContext(s, query, limit, max_bytes)),
  );
  server.registerTool(
    'get_node',
    {
      title: 'Get one context node',
      description: 'One node of the installed context by qualified id (@ns/name#local-id), whole, with provenance and edges.',
      inputSchema: { id: z.string().min(1).max(2000), max_bytes: budget(DEFAULT_DOCUMENT_BYTES) },
      outputSchema: nodeOutput,
      annotations: READ_ONLY,
    },
    async ({ id, max_bytes }) => run(load, (s) => getNode(s, id, max_bytes)),
  );
  server.registerTool(
    'get_section',
    {
      title: 'Get a whole source section',
      description: 'One section of an installed instruction file, whole and in source order (subsections included), by section id (the `section` of a search hit) or heading path ("Tests › Snapshot tests").',
      inputSchema: {
        section: z.string().min(1).max(2000).optional().describe('a section id, e.g. from a search_context hit'),
        path: z.string().min(1).max(2000).optional().describe('a heading path, titles joined by " › " or " > " (the file title may be left out)'),
        package: z.string().min(1).max(300).optional().describe('only sections of this package'),
        file: z.string().min(1).max(2000).optional().describe('only sections of this source file'),
        max_bytes: budget(DEFAULT_DOCUMENT_BYTES),
      },
      outputSchema: sectionOutput,
      annotations: READ_ONLY,
    },
    async ({ section, path, package: pkg, file, max_bytes }) =>
      run(load, (s) => getSection(s, { ...(section !== undefined ? { section } : {}), ...(path !== undefined ? { path } : {}), ...(pkg !== undefined ? { package: pkg } : {}), ...(file !== undefined ? { file } : {}) }, max_bytes)),
  );
  server.registerTool(
    'neighbors',
    {
      title: 'Related context nodes',
      description: 'Nodes connected to a node within depth 1-3 (contains, references, supports, contradicts, …), nearest first.',
      inputSchema: { id: z.string().min(1).max(2000), depth: z.number().int().min(1).max(3).optional(), max_bytes: budget(DEFAULT_ANSWER_BYTES) },
      outputSchema: neighborsOutput,
      annotations: READ_ONLY,
    },
    async ({ id, depth, max_bytes }) => run(load, (s) => neighbors(s, id, depth ?? 1, max_bytes)),
  );
  server.registerTool(
    'render_pack',
    {
      title: 'Render a context pack',
      description: 'A budgeted context pack of the installed context; omissions are counted. With `focus`, only what it names: a section by its heading ("Text wrapping", or a path "Tests > Snapshot tests"), the rules scoped to a path or glob (src/api/users.ts, src/api/**), or the items holding the most of the given words; a focus naming nothing is an E_NOT_FOUND error with the closest headings.',
      inputSchema: { focus: z.string().max(1000).optional(), max_bytes: budget(DEFAULT_DOCUMENT_BYTES) },
      outputSchema: packOutput,
      annotations: READ_ONLY,
    },
    async ({ focus, max_bytes }) => run(load, (s) => renderPack(s, focus, max_bytes)),
  );

  /** A resource body, or a JSON-RPC error (the project's problem, or -32002 for an unknown package). */
  const resource = (fn: (s: McpState) => string): string => {
    let s: McpState;
    try {
      s = load();
    } catch (err) {
      throw new RpcError(INTERNAL_ERROR, errorText(err));
    }
    try {
      return fn(s);
    } catch (err) {
      // Only a package that is not installed is "not found"; any other problem (a policy error,
      // a broken file) is the server's error about an existing resource.
      if (isCtxpkgError(err) && err.code === 'E_NOT_FOUND' && err.details?.resource !== undefined) throw new RpcError(RESOURCE_NOT_FOUND, `resource not found: ${err.message}`);
      throw new RpcError(INTERNAL_ERROR, errorText(err));
    }
  };
  server.registerResource(
    'packages',
    'ctxpkg://packages',
    { title: 'Installed context packages', description: 'Installed packages with versions, item counts, trust and content hashes', mimeType: 'text/markdown' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: resource(packageList) }] }),
  );
  server.registerResource(
    'package',
    new ResourceTemplate('ctxpkg://package/{name}', {
      list: async () => {
        let inputs: McpState['project']['graph']['inputs'] = [];
        try {
          inputs = load().project.graph.inputs;
        } catch {
          // no project: nothing to list
        }
        return { resources: inputs.map((i) => ({ uri: packageUri(i.package), name: `${i.package}@${i.version}`, mimeType: 'text/markdown' })) };
      },
    }),
    { title: 'One installed package', description: `The context pack of one installed package (${DEFAULT_DOCUMENT_BYTES} bytes budget)`, mimeType: 'text/markdown' },
    async (uri, vars) => {
      const raw = Array.isArray(vars.name) ? vars.name[0] : vars.name;
      let name: string;
      try {
        name = decodeURIComponent(String(raw ?? ''));
      } catch {
        throw new RpcError(RESOURCE_NOT_FOUND, `resource not found: ${uri.href}`);
      }
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: resource((s) => packageResource(s, name)) }] };
    },
  );
  server.server.onclose = () => {
    if (timer) clearInterval(timer);
  };
  return server;
}

/**
 * Serve over stdio until the client disconnects. `transport` is injectable for tests; the
 * default is the process's stdin/stdout (only stderr may carry logs).
 */
export async function serveMcp(deps: Pick<CliDeps, 'cwd' | 'clock'> & Partial<Pick<CliDeps, 'env' | 'homeDir' | 'stderr'>>, opts: McpOptions = {}, transport: Transport = new StdioServerTransport()): Promise<void> {
  const server = createMcpServer(deps, opts);
  const closed = new Promise<void>((done) => {
    const stop = server.server.onclose;
    server.server.onclose = () => {
      stop?.();
      done();
    };
  });
  await server.connect(transport);
  await closed;
}
