// Module-load recorder for tests: `node --import <this file> …` appends every import the ES module
// loader resolves (static imports, dynamic imports, the entry point) to the file named by
// CTXPKG_LOAD_RECORD, one line each: `<importing module URL>\t<resolved URL>` (the entry point
// has an empty importer). test/startup-graph.test.ts uses it to pin which modules a CLI path
// loads. Plain JavaScript, so it works with or without a TypeScript loader in the child.
import { register } from 'node:module';

const file = process.env.CTXPKG_LOAD_RECORD;
if (file) register('./load-recorder-hooks.mjs', import.meta.url, { data: { file } });
