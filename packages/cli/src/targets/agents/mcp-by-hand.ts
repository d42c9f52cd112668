/**
 * Text for agents whose MCP servers live only in a user-level config that `ctxpkg sync` never
 * writes (`AgentTarget.mcpUserOnly.how`): the entry to add by hand, in the `mcpServers` shape
 * those agents document (`{ "command", "args" }`).
 */

/**
 * `"ctxpkg": {"command":"ctxpkg","args":["mcp"]}` for the server started as `command args…`:
 * the member to add to an `mcpServers` object (JSON, one line, fixed key order).
 */
export function mcpServersMember(command: string, args: readonly string[]): string {
  return `"ctxpkg": ${JSON.stringify({ command, args })}`;
}
