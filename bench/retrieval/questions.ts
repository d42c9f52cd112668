/**
 * The retrieval benchmark's question set (issue 17 item 5): questions a developer would ask
 * about the instruction files in `../shared/corpus`, each with a short substring of the source
 * line that answers it (any one of `answers` counts). Written by hand from the corpus; the
 * substrings are a few words, never whole lines or files (the corpus is read at run time, never
 * copied into the repository). Some questions are plain identifiers, paths or flags, which the
 * ranking must match exactly.
 */
export interface Question {
  /** The corpus file (path under ../shared/corpus) the answer is in. */
  file: string;
  q: string;
  answers: string[];
}

const CODEX = 'codex/AGENTS.md';
const VSCODE = 'vscode/.github/copilot-instructions.md';
const NEMO = 'nemo-agent-toolkit/.cursor/rules/general.mdc';
const NAT_TESTS = 'nemo-agent-toolkit/.cursor/rules/nat-tests/general.mdc';
const AGENTSMD = 'agentsmd/AGENTS.md';
const FASTAPI = 'awesome-cursorrules/fastapi/.cursorrules';

export const QUESTIONS: readonly Question[] = [
  // codex
  { file: CODEX, q: 'what prefix do the rust crate names use', answers: ['Crate names are prefixed with'] },
  { file: CODEX, q: 'I changed ConfigToml, what do I need to regenerate?', answers: ['just write-config-schema'] },
  { file: CODEX, q: 'what to run after changing Cargo.toml dependencies', answers: ['just bazel-lock-update'] },
  { file: CODEX, q: 'may I touch the sandbox network disabled env var code?', answers: ['CODEX_SANDBOX_NETWORK_DISABLED_ENV_VAR'] },
  { file: CODEX, q: 'how do I format the rust code when I am done', answers: ['Run `just fmt`'] },
  { file: CODEX, q: 'should local test runs use --all-features', answers: ['Avoid `--all-features`'] },
  { file: CODEX, q: 'fix linter issues before finalizing a large change', answers: ['just fix -p <project>'] },
  { file: CODEX, q: 'how do I accept new insta snapshots', answers: ['cargo insta accept -p codex-tui'] },
  { file: CODEX, q: 'which assert_eq should tests use for clearer diffs', answers: ['pretty_assertions::assert_eq'] },
  { file: CODEX, q: 'spawn first-party binaries in tests under Bazel', answers: ['codex_utils_cargo_bin::cargo_bin'] },
  { file: CODEX, q: 'how should I wrap plain strings in the TUI', answers: ['textwrap::wrap'] },
  { file: CODEX, q: 'can I use .white() for text color in ratatui', answers: ['Avoid hardcoded white'] },
  { file: CODEX, q: 'field casing on the wire for app-server v2', answers: ['camelCase on the wire'] },
  { file: CODEX, q: 'how should timestamps be represented in the API', answers: ['integer Unix seconds'] },
  { file: CODEX, q: 'pagination for new list methods', answers: ['cursor pagination by default'] },
  { file: CODEX, q: 'where does model-visible prompt context go', answers: ['shared fragment abstractions'] },
  { file: CODEX, q: 'skip_serializing_if on v2 payload fields', answers: ['Never use `#[serde(skip_serializing_if'] },
  { file: CODEX, q: 'MODULE.bazel.lock', answers: ['MODULE.bazel.lock'] },
  // vscode
  { file: VSCODE, q: 'tabs or spaces for indentation', answers: ['We use tabs, not spaces.'] },
  { file: VSCODE, q: 'type-check src changes without the build watch task', answers: ['npm run compile-check-ts-native'] },
  { file: VSCODE, q: 'how do I check for layering issues', answers: ['npm run valid-layers-check'] },
  { file: VSCODE, q: 'naming convention for enum values', answers: ['Use PascalCase for `enum` values'] },
  { file: VSCODE, q: 'which quotes for user-visible strings that get localized', answers: ['Use "double quotes" for strings shown to the user'] },
  { file: VSCODE, q: 'how to run unit tests filtered by a pattern', answers: ['scripts/test.sh'] },
  { file: VSCODE, q: 'when to register disposables', answers: ['registering them immediately after creation'] },
  { file: VSCODE, q: 'how should I open an editor', answers: ['Use `IEditorService` to open editors'] },
  { file: VSCODE, q: 'copyright header required in files', answers: ['Microsoft copyright header'] },
  { file: VSCODE, q: 'where is the electron main process code', answers: ['src/vs/code/'] },
  { file: VSCODE, q: 'capitalization of command labels and buttons', answers: ['title-style capitalization'] },
  { file: VSCODE, q: 'may I use npm run compile to compile typescript', answers: ['NEVER use `npm run compile`'] },
  { file: VSCODE, q: 'how many assertions should a test have', answers: ['Minimize the amount of assertions in tests'] },
  { file: VSCODE, q: 'async await or promise then', answers: ['Prefer `async` and `await` over `Promise`'] },
  // nemo general
  { file: NEMO, q: 'what were the old deprecated names of the toolkit', answers: ['previously known as the Agent Intelligence toolkit'] },
  { file: NEMO, q: 'yapf column limit', answers: ['column_limit = 120'] },
  { file: NEMO, q: 'how do I add a new python dependency', answers: ['`uv.lock` via `uv pip install'] },
  { file: NEMO, q: 'commit sign-off for the DCO', answers: ['Sign commits with `--signoff`'] },
  { file: NEMO, q: 'logging an exception I catch without re-raising', answers: ['always use `logger.exception()`'] },
  { file: NEMO, q: 'who sets the version numbers', answers: ['setuptools-scm'] },
  { file: NEMO, q: 'where do the documentation sources live', answers: ['Markdown files under `docs/source`'] },
  { file: NEMO, q: 'which license header must source files have', answers: ['SPDX Apache-2.0 header'] },
  // nemo tests
  { file: NAT_TESTS, q: 'do async tests need @pytest.mark.asyncio', answers: ['Do NOT add `@pytest.mark.asyncio`'] },
  { file: NAT_TESTS, q: 'how do I include slow tests when running pytest', answers: ['pytest --run_slow'] },
  { file: NAT_TESTS, q: 'deterministic LLM for tests without API keys', answers: ['use the `nat_test_llm`'] },
  { file: NAT_TESTS, q: 'where to define fixtures used by many tests', answers: ['Fixtures that are used in multiple tests should be defined'] },
  { file: NAT_TESTS, q: 'which decorators mark integration tests', answers: ['Use `@pytest.mark.slow` and `@pytest.mark.integration` decorators'] },
  { file: NAT_TESTS, q: 'is there a fixture for the redis url', answers: ['`redis_url`'] },
  // agents.md
  { file: AGENTSMD, q: 'can I run npm run build inside the agent session', answers: ['run `npm run build` inside the agent session'] },
  { file: AGENTSMD, q: 'what do I do after updating dependencies', answers: ['Re-start the development server'] },
  { file: AGENTSMD, q: 'package-lock.json', answers: ['Update the appropriate lockfile'] },
  // fastapi
  { file: FASTAPI, q: 'how to handle startup and shutdown events in FastAPI', answers: ['prefer lifespan context managers'] },
  { file: FASTAPI, q: 'what is the RORO pattern', answers: ['Receive an Object, Return an Object'] },
  { file: FASTAPI, q: 'how should expected errors be returned', answers: ['Use HTTPException for expected errors'] },
  { file: FASTAPI, q: 'def or async def', answers: ['Use def for pure functions and async def'] },
];
