import {Box, Text, useInput} from 'ink';
import {useRef, useState} from 'react';
import type {ApprovalRequest, Decision} from '../core/events.js';
import {showInvisible, toTerminalText} from '../core/terminal-text.js';
import {useKeyGrace} from '../hooks/use-key-grace.js';
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
 * Typed-ahead keys count no more here than at an approval (useKeyGrace).
 */
export function LoopPrompt({request, columns, onDecision, isActive = true, now, graceMs}: Props) {
  const theme = useTheme();
  const grace = useKeyGrace({...(now ? {now} : {}), ...(graceMs === undefined ? {} : {graceMs})});
  const decided = useRef(false);
  const [message, setMessage] = useState<string>();

  const decide = (decision: Decision) => {
    if (decided.current) return;
    decided.current = true;
    onDecision(decision);
  };

  useInput(
    (input, key) => {
      if (decided.current) return;
      const ignored = grace.ignoreEarly(Math.max(1, [...input].length));
      if (ignored > 0) {
        setMessage(`Ignored ${ignored} key${ignored === 1 ? '' : 's'} typed before this question was ready: pause, then press one key.`);
        return;
      }
      if (key.escape || input === 'n') decide({kind: 'no'});
      else if (input === 'y') decide({kind: 'yes'});
      else if (input.length > 1) setMessage('Several keys arrived at once and were ignored: press one key.');
    },
    {isActive},
  );

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
      {message ? <Text {...theme.error}>{message}</Text> : null}
      {grace.isReady ? (
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
