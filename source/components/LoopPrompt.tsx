import {Box, Text} from 'ink';
import type {ApprovalRequest, Decision} from '../core/events.js';
import {showInvisible, toTerminalText} from '../core/terminal-text.js';
import {useYesNo} from '../hooks/use-key-grace.js';
import {useTheme} from './theme.js';

export type Props = {
  /** The loop question: the call the model keeps repeating, and how often it has. */
  readonly request: ApprovalRequest;
  readonly columns: number;
  /** yes: go on (the call runs, or asks as usual); no: stop the turn. */
  readonly onDecision: (decision: Decision) => void;
  readonly isActive?: boolean;
  readonly now?: () => number;
  readonly graceMs?: number;
};

/**
 * The turn is paused because the model made the same call again and again: go on, or stop.
 * Typed-ahead keys count no more here than at an approval (useKeyGrace, through useYesNo).
 */
export function LoopPrompt({request, columns, onDecision, isActive = true, now, graceMs}: Props) {
  const theme = useTheme();
  const {isReady, notice} = useYesNo(yes => onDecision({kind: yes ? 'yes' : 'no'}), {isActive, now, graceMs});

  const hint = (name: string, label: string) => (
    <Text>
      <Text {...theme.key}>{name}</Text> {label}
    </Text>
  );
  return (
    <Box flexDirection="column" width={columns}>
      <Text {...theme.warning}>The model made the same call {request.loop?.repeats ?? 'several'} times in a row; it may be stuck.</Text>
      <Text {...theme.toolName} wrap="truncate-end">
        {showInvisible(toTerminalText(request.preview.title))}
      </Text>
      {notice ? <Text {...theme.error}>{notice}</Text> : null}
      {isReady ? (
        <Text>
          <Text {...theme.accent}>Go on? </Text>
          {hint('y', 'go on')} · {hint('n', 'stop the turn')} · {hint('esc', 'stop')}
        </Text>
      ) : (
        <Text {...theme.accent}>Go on?</Text>
      )}
    </Box>
  );
}
