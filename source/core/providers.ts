/**
 * Provider presets: where each known OpenAI-compatible server lives and which environment
 * variable holds its key. Kept in core because both the config (to resolve them) and the bash tool
 * (to hide every one of those keys from commands) need the list.
 */
export type ProviderPreset = {
  baseURL: string;
  /** The variable the key is read from; absent for local servers that take none. */
  keyEnv?: string;
  /** A loopback server: no key needed. */
  local: boolean;
};

export const PROVIDER_PRESETS = {
  openai: {baseURL: 'https://api.openai.com/v1', keyEnv: 'OPENAI_API_KEY', local: false},
  openrouter: {baseURL: 'https://openrouter.ai/api/v1', keyEnv: 'OPENROUTER_API_KEY', local: false},
  ollama: {baseURL: 'http://127.0.0.1:11434/v1', local: true},
  lmstudio: {baseURL: 'http://127.0.0.1:1234/v1', local: true},
  llamacpp: {baseURL: 'http://127.0.0.1:8080/v1', local: true},
  // vLLM only checks a key when started with --api-key (it reads VLLM_API_KEY too).
  vllm: {baseURL: 'http://127.0.0.1:8000/v1', keyEnv: 'VLLM_API_KEY', local: true},
  anthropic: {baseURL: 'https://api.anthropic.com/v1', keyEnv: 'ANTHROPIC_API_KEY', local: false},
  gemini: {baseURL: 'https://generativelanguage.googleapis.com/v1beta/openai', keyEnv: 'GEMINI_API_KEY', local: false},
  deepseek: {baseURL: 'https://api.deepseek.com/v1', keyEnv: 'DEEPSEEK_API_KEY', local: false},
  groq: {baseURL: 'https://api.groq.com/openai/v1', keyEnv: 'GROQ_API_KEY', local: false},
  mistral: {baseURL: 'https://api.mistral.ai/v1', keyEnv: 'MISTRAL_API_KEY', local: false},
} as const satisfies Record<string, ProviderPreset>;

export type ProviderName = keyof typeof PROVIDER_PRESETS;

export const PROVIDER_NAMES = Object.keys(PROVIDER_PRESETS) as ProviderName[];

export function isProviderName(name: string): name is ProviderName {
  return Object.hasOwn(PROVIDER_PRESETS, name);
}

export function providerPreset(name: ProviderName): ProviderPreset {
  return PROVIDER_PRESETS[name];
}

/** Every variable a preset reads a key from: commands nib runs must see none of them. */
export const PROVIDER_KEY_ENVS: readonly string[] = [
  ...new Set(Object.values(PROVIDER_PRESETS as Record<string, ProviderPreset>).flatMap(preset => (preset.keyEnv ? [preset.keyEnv] : []))),
];

/**
 * Variables no process nib starts (commands, hooks) may see: nib's own key variable and every
 * preset's. Whatever variable the configured key came from is added per session.
 */
export const SECRET_ENV_NAMES: readonly string[] = [...new Set(['NIB_API_KEY', ...PROVIDER_KEY_ENVS])];
