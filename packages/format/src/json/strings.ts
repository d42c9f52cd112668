/**
 * String literals exactly as serde_json writes them (FORMAT-FACTS §3.4 "Strings"; vector
 * `string_table`): `\"`, `\\`, `\b \f \n \r \t`, other U+0000–U+001F as lowercase `\u00xx`;
 * everything else (DEL, `/`, U+2028/2029, all non-ASCII) raw. For well-formed strings this is
 * exactly `JSON.stringify`; lone surrogates are refused (serde cannot represent them).
 */
import { CtxpkgError } from '../errors.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True when `s` contains an unpaired UTF-16 surrogate. */
export function hasLoneSurrogate(s: string): boolean {
  const f = (s as unknown as { isWellFormed?: () => boolean }).isWellFormed;
  return typeof f === 'function' ? !f.call(s) : LONE_SURROGATE.test(s);
}

/**
 * The JSON literal for `s` as serde_json writes it. Throws `E_INVALID_JSON` for a string with a
 * lone surrogate (`what` names the field in the message).
 */
export function formatJsonString(s: string, what = 'a string'): string {
  if (hasLoneSurrogate(s)) {
    throw new CtxpkgError('E_INVALID_JSON', `${what} contains a lone UTF-16 surrogate, which JSON text cannot carry`);
  }
  return JSON.stringify(s);
}
