import { describe, expect, it } from 'vitest';
import { parse as parseJsonc } from 'jsonc-parser';
import { insertMcpEntry, mcpEntryState, onlyMcpEntry, removeMcpEntry, type McpSlot } from './mcp-config.js';

const V = { command: 'ctxpkg', args: ['mcp'] };
const JSON_SLOT: McpSlot = { format: 'json', key: 'mcpServers' };
const JSONC_SLOT: McpSlot = { format: 'jsonc', key: 'servers' };

const code = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
};

describe('MCP config edits', () => {
  const cases: Array<[string, McpSlot, string]> = [
    ['empty object', JSON_SLOT, '{}\n'],
    ['empty object over lines', JSON_SLOT, '{\n}\n'],
    ['empty servers', JSON_SLOT, '{\n  "mcpServers": {}\n}\n'],
    ['other server, 2 spaces', JSON_SLOT, '{\n  "mcpServers": {\n    "other": { "command": "x" }\n  }\n}\n'],
    ['other settings, tabs, no servers', JSON_SLOT, '{\n\t"theme": "dark",\n\t"n": [1, 2]\n}\n'],
    ['one line', JSON_SLOT, '{"mcpServers":{"a":{"command":"b"}}}'],
    ['CRLF, 4 spaces', JSON_SLOT, '{\r\n    "mcpServers": {\r\n        "a": {"command": "b"}\r\n    }\r\n}\r\n'],
    ['JSONC: comments, trailing commas, inputs', JSONC_SLOT, '{\n  // my servers\n  "servers": {\n    /* github */ "gh": {"type": "http", "url": "https://x"}, // end\n  },\n  "inputs": [],\n}\n'],
    ['JSONC: only a comment in servers', JSONC_SLOT, '{\n  "servers": {\n    // none yet\n  }\n}'],
    ['whitespace only', JSON_SLOT, '\n'],
  ];
  for (const [name, slot, before] of cases) {
    it(`${name}: inserts only the entry, parses back, and removal restores the bytes (with and without the record)`, () => {
      const { text, inserted } = insertMcpEntry(before, slot, V, 'f.json');
      expect(text.length).toBe(before.length + inserted.length);
      const parsed = parseJsonc(text) as Record<string, Record<string, unknown>>;
      expect(parsed[slot.key]?.ctxpkg).toEqual(V);
      if (slot.format === 'json') expect(JSON.parse(text)[slot.key].ctxpkg).toEqual(V);
      const was = before.trim() === '' ? {} : (parseJsonc(before) as Record<string, Record<string, unknown>>);
      for (const [k, v] of Object.entries(was)) if (k !== slot.key) expect(parsed[k]).toEqual(v);
      for (const [k, v] of Object.entries(was[slot.key] ?? {})) expect(parsed[slot.key]?.[k]).toEqual(v);
      expect(mcpEntryState(text, slot, 'f.json')).toEqual({ kind: 'present', value: V });
      expect(removeMcpEntry(text, slot, V, 'f.json', inserted)).toBe(before);
      // Without the record (a fresh clone) the same bytes come back — except where the file is
      // exactly what sync writes when it creates one: then it counts as created by sync.
      const fresh = removeMcpEntry(text, slot, V, 'f.json');
      if (text === insertMcpEntry(undefined, slot, V, 'f.json').text) expect(fresh).toBe('');
      else expect(fresh).toBe(before);
    });
  }

  it('a new file is the entry alone; removing it leaves nothing', () => {
    const { text, inserted } = insertMcpEntry(undefined, JSON_SLOT, V, 'f.json');
    expect(text).toBe('{\n  "mcpServers": {\n    "ctxpkg": {\n      "command": "ctxpkg",\n      "args": [\n        "mcp"\n      ]\n    }\n  }\n}\n');
    expect(inserted).toBe(text);
    expect(onlyMcpEntry(text, JSON_SLOT, 'f.json')).toBe(true);
    expect(removeMcpEntry(text, JSON_SLOT, V, 'f.json', inserted)).toBe('');
    expect(removeMcpEntry(text, JSON_SLOT, V, 'f.json')).toBe('');
  });

  it('a server the user added after ours stays when ours is removed', () => {
    const { text, inserted } = insertMcpEntry('{\n  "mcpServers": {}\n}\n', JSON_SLOT, V, 'f.json');
    const edited = text.replace('"ctxpkg": {', '"mine": {"command": "m"},\n    "ctxpkg": {');
    const out = removeMcpEntry(edited, JSON_SLOT, V, 'f.json', inserted);
    expect(JSON.parse(out)).toEqual({ mcpServers: { mine: { command: 'm' } } });
  });

  it('invalid files are E_INVALID_JSON naming line and column; comments are invalid in strict JSON only', () => {
    expect(code(() => insertMcpEntry('{"mcpServers": {', JSON_SLOT, V, '.mcp.json'))).toBe('E_INVALID_JSON');
    expect(code(() => insertMcpEntry('[]', JSON_SLOT, V, '.mcp.json'))).toBe('E_INVALID_JSON');
    expect(code(() => insertMcpEntry('{// c\n}', JSON_SLOT, V, '.mcp.json'))).toBe('E_INVALID_JSON');
    expect(code(() => insertMcpEntry('{// c\n}', JSONC_SLOT, V, '.vscode/mcp.json'))).toBeUndefined();
    try {
      insertMcpEntry('{\n  "a": 1,,\n}', JSON_SLOT, V, '.mcp.json');
    } catch (e) {
      expect((e as Error).message).toMatch(/^\.mcp\.json is not valid JSON \(\w+ at line 2, column \d+\)/);
    }
  });

  it('a servers value that is not an object is reported, never replaced', () => {
    expect(mcpEntryState('{"mcpServers": null}', JSON_SLOT, 'f')).toEqual({ kind: 'blocked', what: '"mcpServers" is not an object', fix: 'make it an object to let sync add it' });
  });
});
