/**
 * Child script of startup-graph.test.ts (run with the module-load recorder): builds the program
 * with every command module registered — what `ctxpkg <cmd> --help` loads for each command —
 * and runs no command.
 */
import { createProgram, type CliDeps } from 'ctxpkg';

const sink = { write: (): boolean => true };
await createProgram({ stdout: sink, stderr: sink } as unknown as CliDeps);
