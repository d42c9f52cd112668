/** The JSON text layer: strict parsing, reference-exact text operations and value formatting. */
export * from './fast.js';
export * from './numbers.js';
export * from './parse.js';
export * from './strings.js';
export * from './text.js';
export * from './timestamp.js';
