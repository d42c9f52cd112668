/**
 * The list of command registrars. Each command lives in its own file `commands/<name>.ts` and
 * exports `register(program, ctx)`. Keep this list sorted by command name.
 */
import type { Command } from 'commander';
import type { CommandContext } from '../program.js';
import { register as convert } from './convert.js';
import { register as create } from './create.js';
import { register as info } from './info.js';
import { register as init } from './init.js';
import { register as install } from './install.js';
import { register as keygen } from './keygen.js';
import { register as login } from './login.js';
import { register as ls } from './ls.js';
import { register as mcp } from './mcp.js';
import { register as outdated } from './outdated.js';
import { register as publish } from './publish.js';
import { register as quickstart } from './quickstart.js';
import { register as registry } from './registry.js';
import { register as render } from './render.js';
import { register as search } from './search.js';
import { register as sync } from './sync.js';
import { register as uninstall } from './uninstall.js';
import { register as update } from './update.js';
import { register as verify } from './verify.js';
import { register as why } from './why.js';
import { register as yank } from './yank.js';

type Registrar = (program: Command, ctx: CommandContext) => void;

const REGISTRARS: Registrar[] = [
  convert, create, info, init, install, keygen, login, ls, mcp, outdated, publish, quickstart, registry, render, search, sync, uninstall, update, verify, why, yank,
];

/** Register every command on `program`. */
export function registerCommands(program: Command, ctx: CommandContext): void {
  for (const r of REGISTRARS) r(program, ctx);
}
