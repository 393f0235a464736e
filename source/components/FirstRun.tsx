import {Box, Text} from 'ink';
import {useTheme} from './theme.js';

export type Props = {
  /** Why nib cannot start a session yet (from the config check). */
  readonly problem: string;
  /** Where the user config file lives, so the person can create it. */
  readonly configPath: string;
};

const providers: ReadonlyArray<{name: string; lines: string[]}> = [
  {name: 'OpenAI', lines: ['export OPENAI_API_KEY=sk-...', 'export NIB_MODEL=gpt-4.1-mini']},
  {
    name: 'OpenRouter',
    lines: ['export OPENAI_BASE_URL=https://openrouter.ai/api/v1', 'export OPENAI_API_KEY=sk-or-...', 'export NIB_MODEL=qwen/qwen3-coder'],
  },
  {name: 'Ollama', lines: ['export OPENAI_BASE_URL=http://127.0.0.1:11434/v1', 'export NIB_MODEL=qwen2.5-coder']},
  {name: 'LM Studio', lines: ['export OPENAI_BASE_URL=http://127.0.0.1:1234/v1', 'export NIB_MODEL=<the loaded model>']},
];

/** Shown instead of an error when no model is configured: how to point nib at one. */
export function FirstRun({problem, configPath}: Props) {
  const theme = useTheme();
  return (
    <Box flexDirection="column" paddingX={1}>
      <Text {...theme.bold}>Welcome to nib.</Text>
      <Text>It needs an OpenAI-compatible model to talk to ({problem}).</Text>
      <Text> </Text>
      {providers.map(provider => (
        <Box key={provider.name} flexDirection="column" marginBottom={1}>
          <Text {...theme.accent}>{provider.name}</Text>
          {provider.lines.map(line => (
            <Text key={line}>  {line}</Text>
          ))}
        </Box>
      ))}
      <Text>
        Or put {'{"model": "...", "baseURL": "...", "apiKey": "..."}'} in <Text {...theme.bold}>{configPath}</Text>
      </Text>
      <Text>
        Try it without any key: <Text {...theme.key}>nib --demo</Text>
      </Text>
      <Text {...theme.dim}>Press any key to exit.</Text>
    </Box>
  );
}
