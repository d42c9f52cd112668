/**
 * The list of command registrars. Each command lives in its own file `commands/<name>.ts` and
 * exports `register(program, ctx)`. Keep this list sorted by command name.
 */
import type { Command } from 'commander';
import type { CommandContext } from '../program.js';

type Registrar = (program: Command, ctx: CommandContext) => void;

const REGISTRARS: Registrar[] = [];

/** Register every command on `program`. */
export function registerCommands(program: Command, ctx: CommandContext): void {
  for (const r of REGISTRARS) r(program, ctx);
}
