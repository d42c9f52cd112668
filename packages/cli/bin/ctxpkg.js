#!/usr/bin/env node
// Thin launcher: runs the compiled CLI (built by `npm install` via the root `prepare` script).
import('../dist/bin.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/bin.js')) {
    process.stderr.write('error E_INTERNAL: ctxpkg is not built; run `npm install` (or `npm run build`) in the repository\n');
    process.exit(70);
  }
  throw err;
});
