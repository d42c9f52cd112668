// Module-load recorder for tests: `node --import <this file> …` appends every import the ES module
// loader resolves (static imports, dynamic imports, the entry point) to the file named by
// CTXPKG_LOAD_RECORD, one line each: `<importing module URL>\t<resolved URL>` (the entry point
// has an empty importer). CommonJS `require` calls that resolve to a file (a library's own
// requires, and a module loaded on first use through `createRequire`, as glob.ts loads RE2JS) are
// appended the same way, so a lazy load that happens is seen too. test/startup-graph.test.ts uses
// it to pin which modules a CLI path loads. Plain JavaScript, so it works with or without a
// TypeScript loader in the child.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';

const file = process.env.CTXPKG_LOAD_RECORD;
if (file) {
  register('./load-recorder-hooks.mjs', import.meta.url, { data: { file } });
  const require = Module.prototype.require;
  Module.prototype.require = function recordedRequire(id) {
    const exports = require.call(this, id);
    const resolved = Module._resolveFilename(id, this);
    if (isAbsolute(resolved)) appendFileSync(file, `${this.filename ? pathToFileURL(this.filename).href : ''}\t${pathToFileURL(resolved).href}\n`);
    return exports;
  };
}
