import {Box, Text} from 'ink';
import {memo} from 'react';
import type {ApprovalMode} from '../core/approval-mode.js';
import {useTheme} from './theme.js';

/** What the keyboard does right now, which decides the hints shown. */
export type KeyState = 'idle' | 'commands' | 'paths' | 'busy' | 'approval' | 'confirm-exit';

export type Props = {
  readonly model: string;
  readonly mode: ApprovalMode;
  /** Tools answered "always" in this session. */
  readonly alwaysTools: readonly string[];
  readonly alwaysRules?: readonly string[];
  /** Tokens sent and received in this session. */
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Tokens the conversation takes up in the model's context window now. */
  readonly contextTokens: number;
  /**
   * The model's context window in tokens: shows how full it is. null: nobody has said (the
   * server was silent and nothing is configured), which the bar says instead of guessing.
   */
  readonly contextWindow?: number | null;
  /** The working directory as shown (already shortened, e.g. `~/src/app`). */
  readonly cwd: string;
  readonly keyState: KeyState;
  readonly width: number;
};

const hints: Record<KeyState, string> = {
  idle: 'enter send · ctrl+j newline · / commands · shift+tab mode · ctrl+d exit',
  // A completion list is open: Enter takes the highlighted entry rather than sending what is typed.
  commands: '↑/↓ choose · enter pick · tab complete · esc close · type to filter',
  paths: '↑/↓ choose · enter or tab complete · esc close · type to filter',
  busy: 'esc interrupt · type to queue · shift+tab mode',
  // An approval or a /undo, /resume dialog lists its own keys, which change as it goes (a reason
  // being typed, hunk by hunk); repeating a fixed list here would contradict it.
  approval: 'keys as shown above · ctrl+c twice exits',
  'confirm-exit': 'press ctrl+c again to exit',
};

/**
 * Two lines under the prompt: the session's facts, and the keys that apply now. Memoized (its
 * props are plain values): the frames of a streaming answer leave it alone.
 */
export const StatusBar = memo(function StatusBar({model, mode, alwaysTools, alwaysRules = [], promptTokens, completionTokens, contextTokens, contextWindow, cwd, keyState, width}: Props) {
  const theme = useTheme();
  const fill =
    contextWindow === null
      ? ' (ctx window unknown)'
      : contextWindow
        ? ` (${Math.round((contextTokens / contextWindow) * 100)}% of ${contextWindow.toLocaleString('en-US')} ctx)`
        : '';
  return (
    <Box flexDirection="column" width={width}>
      <Text wrap="truncate-end">
        <Text {...theme.accent}>{model}</Text>
        <Text {...theme.dim}> · </Text>
        <Text {...(mode === 'yolo' ? theme.warning : theme.text)}>{mode}</Text>
        {alwaysTools.length + alwaysRules.length > 0 ? <Text {...theme.dim}> · always: {alwaysLabel(alwaysTools, alwaysRules)}</Text> : null}
        <Text {...theme.dim}>
          {' '}
          · ↑{formatTokens(promptTokens)} ↓{formatTokens(completionTokens)}
          {fill} · {cwd}
        </Text>
      </Text>
      <Text {...(keyState === 'confirm-exit' ? theme.warning : theme.dim)} wrap="truncate-end">
        {hints[keyState]}
      </Text>
    </Box>
  );
});

export function formatTokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 100_000) return `${(count / 1000).toFixed(1).replace(/\.0$/, '')}k`;
  return `${Math.round(count / 1000)}k`;
}

/**
 * Tools granted whole by name; allow rules (`bash(npm test)`) by name when there is one short
 * one, else counted: the line must keep room for the tokens and the directory after it.
 */
function alwaysLabel(tools: readonly string[], rules: readonly string[]): string {
  const shown = rules.length === 1 && rules[0]!.length <= 24 ? rules[0]! : rules.length > 0 ? `${rules.length} rule${rules.length === 1 ? '' : 's'} (/permissions)` : '';
  return [...tools, shown].filter(Boolean).join(', ');
}
