import {Box, Text} from 'ink';
import {PROVIDER_NAMES, providerPreset} from '../core/providers.js';
import {useTheme} from './theme.js';

export type Props = {
  /** Why nib cannot start a session yet (from the config check). */
  readonly problem: string;
  /** Where the user config file lives, so the person can create it. */
  readonly configPath: string;
};

const examples: ReadonlyArray<{name: string; lines: string[]}> = [
  {name: 'OpenAI', lines: ['export OPENAI_API_KEY=sk-...', 'nib --model gpt-4.1-mini']},
  {name: 'OpenRouter', lines: ['export OPENROUTER_API_KEY=sk-or-...', 'nib --provider openrouter --model qwen/qwen3-coder']},
  {name: 'Ollama (local, no key)', lines: ['nib --provider ollama --model qwen2.5-coder']},
];

/** `ollama, lmstudio (local) · anthropic (ANTHROPIC_API_KEY)`: what each preset needs. */
const presetLine = PROVIDER_NAMES.map(name => {
  const preset = providerPreset(name);
  return preset.local ? `${name} (local)` : `${name} (${preset.keyEnv})`;
}).join(', ');

/** Shown instead of an error when no model is configured: how to point nib at one. */
export function FirstRun({problem, configPath}: Props) {
  const theme = useTheme();
  return (
    <Box flexDirection="column" paddingX={1}>
      <Text {...theme.bold}>Welcome to nib.</Text>
      <Text>It needs an OpenAI-compatible model to talk to ({problem}).</Text>
      <Text> </Text>
      {examples.map(provider => (
        <Box key={provider.name} flexDirection="column" marginBottom={1}>
          <Text {...theme.accent}>{provider.name}</Text>
          {provider.lines.map(line => (
            <Text key={line}>  {line}</Text>
          ))}
        </Box>
      ))}
      <Text>
        Presets for <Text {...theme.key}>--provider</Text> or {'"provider"'} in the config file: {presetLine}.
      </Text>
      <Text>Any other server: --base-url URL (or OPENAI_BASE_URL) with OPENAI_API_KEY and NIB_MODEL.</Text>
      <Text>
        Or put {'{"provider": "...", "model": "...", "apiKey": "..."}'} in <Text {...theme.bold}>{configPath}</Text>
      </Text>
      <Text>
        Try it without any key: <Text {...theme.key}>nib --demo</Text>
      </Text>
      <Text {...theme.dim}>Press any key to exit.</Text>
    </Box>
  );
}
