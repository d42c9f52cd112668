/** `pinHint`: the successor list's command line names only ids that stay one shell argument (attack pass 2, finding 2). */
import { describe, expect, it } from 'vitest';
import { shellArg } from '@ctxpkg/format/pack/escape';
import { pinHint } from './pin.js';

describe('pinHint', () => {
  it('quotes ids that can be quoted, and names no command for one that could end the quoting', () => {
    expect(pinHint(shellArg('@a/x#AGENTS.md:Rules~1a2b'), undefined)).toBe("pin one with `ctxpkg pin '@a/x#AGENTS.md:Rules~1a2b'`");
    expect(pinHint(shellArg('@a/x#new'), shellArg('@a/x#old'))).toBe("pin one with `ctxpkg pin '@a/x#new'` after `ctxpkg unpin '@a/x#old'`");
    const evil = pinHint(shellArg("@a/x#style'$(touch /tmp/p)'"), shellArg("@a/x#it's") ?? null);
    expect(evil).toBe('pin one by its id (`ctxpkg ls --nodes` lists them) after removing the broken pin from "context.pack.pins" in ctxpkg.json');
    expect(evil).not.toContain('$(');
  });
});
