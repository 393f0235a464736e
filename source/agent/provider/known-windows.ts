/**
 * Windows of well-known hosted models, for servers whose model list says nothing about them
 * (OpenAI's /models lists ids only). Matched by prefix after any "vendor/" part, longest first,
 * so "gpt-4o-mini-2024-07-18" finds "gpt-4o-mini". Figures are the providers' published limits.
 */
const WINDOWS: ReadonlyArray<readonly [string, number]> = [
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-4-turbo', 128_000],
  ['gpt-5', 400_000],
  ['o1', 200_000],
  ['o3', 200_000],
  ['o4-mini', 200_000],
  ['claude-', 200_000],
  ['gemini-1.5-pro', 2_097_152],
  ['gemini-1.5-flash', 1_048_576],
  ['gemini-2', 1_048_576],
  ['deepseek-chat', 128_000],
  ['deepseek-reasoner', 128_000],
  ['mistral-large', 128_000],
  ['codestral', 256_000],
];

const BY_LENGTH = [...WINDOWS].sort((a, b) => b[0].length - a[0].length);

export function knownWindow(model: string): number | null {
  const name = model.toLowerCase().split('/').at(-1) ?? '';
  return BY_LENGTH.find(([prefix]) => name.startsWith(prefix))?.[1] ?? null;
}
