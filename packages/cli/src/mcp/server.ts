/**
 * `ctxpkg mcp`: a read-only MCP server over stdio (@modelcontextprotocol/sdk) serving the
 * installed context (spec/pack.md "MCP"). Loaded lazily by the `mcp` command only, so ordinary
 * commands never load the SDK.
 *
 * Tools: `search_context(query, max_bytes?)`, `get_node(id, max_bytes?)`,
 * `neighbors(id, depth?, max_bytes?)`, `render_pack(focus?, max_bytes?)` — all annotated
 * read-only. Resources: `ctxpkg://packages` (the list) and `ctxpkg://package/{name}` (one
 * package's pack; `name` URI-encoded). Errors are tool results with `isError: true` and the
 * text `error E_CODE: message`.
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import { isCtxpkgError } from '@ctxpkg/format';
import type { CliDeps } from '../deps.js';
import { CLI_VERSION } from '../version.js';
import { stateLoader, type McpState } from './state.js';
import { getNode, MAX_ANSWER_BYTES, neighbors, packageList, packageResource, packageUri, renderPack, searchContext } from './tools.js';

type ToolResult = { content: Array<{ type: 'text'; text: string }>; isError?: boolean };

function run(load: () => McpState, fn: (s: McpState) => string): ToolResult {
  try {
    return { content: [{ type: 'text', text: fn(load()) }] };
  } catch (err) {
    const text = isCtxpkgError(err) ? `error ${err.code}: ${err.message}${err.hint ? `\nhint: ${err.hint}` : ''}` : `error E_INTERNAL: ${(err as Error).message}`;
    return { content: [{ type: 'text', text }], isError: true };
  }
}

const maxBytes = z.number().int().positive().max(MAX_ANSWER_BYTES).optional().describe(`answer budget in UTF-8 bytes (default 16384, at most ${MAX_ANSWER_BYTES})`);
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** Build the server (not yet connected). */
export function createMcpServer(deps: Pick<CliDeps, 'cwd' | 'clock' | 'env' | 'homeDir'>): McpServer {
  const load = stateLoader(deps);
  const server = new McpServer({ name: 'ctxpkg', version: CLI_VERSION }, { capabilities: { tools: {}, resources: {} } });
  // Build the term index while the client is idle after the handshake (requests already read
  // are answered first: setImmediate runs after the poll phase); otherwise the first
  // search_context would pay it. A failure here is left for the tools to report.
  server.server.oninitialized = () => {
    setImmediate(() => {
      try {
        load().index.terms();
      } catch {
        // the same error is reported as a tool result when a tool runs
      }
    });
  };

  server.registerTool(
    'search_context',
    {
      title: 'Search installed context',
      description: 'Full-text search over the installed context packages (facts, gotchas, conventions). Returns the best matches with provenance (package@version, node id, source lines), as untrusted reference data.',
      inputSchema: { query: z.string().min(1).max(1000).describe('words to look for'), max_bytes: maxBytes },
      annotations: READ_ONLY,
    },
    async ({ query, max_bytes }) => run(load, (s) => searchContext(s, query, max_bytes)),
  );
  server.registerTool(
    'get_node',
    {
      title: 'Get one context node',
      description: 'One node of the installed context by qualified id (@ns/name#local-id), with provenance and edges.',
      inputSchema: { id: z.string().min(1).max(2000), max_bytes: maxBytes },
      annotations: READ_ONLY,
    },
    async ({ id, max_bytes }) => run(load, (s) => getNode(s, id, max_bytes)),
  );
  server.registerTool(
    'neighbors',
    {
      title: 'Related context nodes',
      description: 'Nodes connected to a node within depth 1-3 (contains, references, supports, contradicts, …), nearest first.',
      inputSchema: { id: z.string().min(1).max(2000), depth: z.number().int().min(1).max(3).optional(), max_bytes: maxBytes },
      annotations: READ_ONLY,
    },
    async ({ id, depth, max_bytes }) => run(load, (s) => neighbors(s, id, depth ?? 1, max_bytes)),
  );
  server.registerTool(
    'render_pack',
    {
      title: 'Render a context pack',
      description: 'A budgeted context pack of the installed context, optionally focused on a path glob (src/api/**) or topic words; omissions are listed.',
      inputSchema: { focus: z.string().max(1000).optional(), max_bytes: maxBytes },
      annotations: READ_ONLY,
    },
    async ({ focus, max_bytes }) => run(load, (s) => renderPack(s, focus, max_bytes)),
  );

  server.registerResource(
    'packages',
    'ctxpkg://packages',
    { title: 'Installed context packages', description: 'Installed packages with versions, item counts and content hashes', mimeType: 'text/markdown' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: run(load, packageList).content[0]!.text }] }),
  );
  server.registerResource(
    'package',
    new ResourceTemplate('ctxpkg://package/{name}', {
      list: async () => {
        const s = load();
        return { resources: s.project.graph.inputs.map((i) => ({ uri: packageUri(i.package), name: `${i.package}@${i.version}`, mimeType: 'text/markdown' })) };
      },
    }),
    { title: 'One installed package', description: 'The context pack of one installed package (16 KiB budget)', mimeType: 'text/markdown' },
    async (uri, vars) => {
      const raw = Array.isArray(vars.name) ? vars.name[0] : vars.name;
      const name = decodeURIComponent(String(raw ?? ''));
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: run(load, (s) => packageResource(s, name)).content[0]!.text }] };
    },
  );
  return server;
}

/**
 * Serve over stdio until the client disconnects. `transport` is injectable for tests; the
 * default is the process's stdin/stdout (only stderr may carry logs).
 */
export async function serveMcp(deps: Pick<CliDeps, 'cwd' | 'clock' | 'env' | 'homeDir'>, transport: Transport = new StdioServerTransport()): Promise<void> {
  const server = createMcpServer(deps);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  await server.connect(transport);
  await closed;
}
