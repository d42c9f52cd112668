/** The CLI version (kept equal to packages/cli/package.json "version"). */
export const CLI_VERSION = '0.1.0';
/** Tool name written into `provenance.tool` of packages ctxpkg creates. */
export const TOOL_NAME = 'ctxpkg';
