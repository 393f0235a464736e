import {extname} from 'node:path';
import {Box, Text, useInput, usePaste} from 'ink';
import {useMemo, useRef, useState} from 'react';
import type {ApprovalRequest, Decision} from '../core/events.js';
import {protectedPlace} from '../core/tool.js';
import {showInvisible, toTerminalText} from '../core/terminal-text.js';
import {computeChange, decideHunks, describeHunk} from '../state/hunks.js';
import type {EditorResult} from '../hooks/editor.js';
import {useKeyGrace} from '../hooks/use-key-grace.js';
import {useKeyState} from '../hooks/use-key-state.js';
import {CommandView} from './CommandView.js';
import {DiffView} from './DiffView.js';
import {JsonView} from './JsonView.js';
import {LoopPrompt} from './LoopPrompt.js';
import {useTheme, type Theme} from './theme.js';

export type Props = {
  /** The call waiting for an answer: tool name, parsed arguments and the preview to review. */
  readonly request: ApprovalRequest;
  /** Screen rows the whole prompt may take; a long diff scrolls inside them. */
  readonly rows: number;
  /** Screen columns available. */
  readonly columns: number;
  /** Receives the person's answer, once; the consumer keeps an answer that comes early (useAgent). */
  readonly onDecision: (decision: Decision) => void;
  /**
   * Opens text in the person's editor and resolves with what they saved: `useExternalEditor()`
   * in the app, a scripted editor in tests. `suffix` (`.ts`, `.sh`) picks the editor's syntax.
   */
  readonly onEdit: (text: string, suffix: string) => Promise<EditorResult>;
  /** Whether the prompt owns the keyboard; the prompt input is inactive while this is true. */
  readonly isActive?: boolean;
  /** The clock for the typed-ahead grace period (default Date.now); tests pass their own. */
  readonly now?: () => number;
  /** Quiet time before a key answers (default KEY_GRACE_MS); 0 turns the grace off. */
  readonly graceMs?: number;
};

type Mode =
  | {kind: 'choose'}
  | {kind: 'reason'}
  | {kind: 'editing'}
  | {kind: 'hunks'; current: number; accepted: ReadonlySet<number>}
  /** After `a`: the rules it would save are shown; s keeps them for the session, p saves them for the project. */
  | {kind: 'scope'; rules: readonly string[]};

/**
 * Asks whether a write, edit or command may run, or (for a loop question) whether the turn goes on. y yes · a always · n no (+ reason) · e edit
 * in $EDITOR · h hunk by hunk (diffs with more than one hunk) · Esc no. Keys typed before the
 * prompt was ready (see useKeyGrace) decide nothing.
 */
export function ApprovalPrompt(props: Props) {
  // A different component, not a branch: the loop question has its own keys and state.
  if (props.request.loop) return <LoopPrompt {...props} />;
  return <CallPrompt {...props} />;
}

function CallPrompt({request, rows, columns, onDecision, onEdit, isActive = true, now, graceMs}: Props) {
  const theme = useTheme();
  const {preview} = request;
  const change = useMemo(() => (preview.file ? computeChange(preview.file.oldText, preview.file.newText) : undefined), [preview.file]);
  const editable = preview.editable ?? preview.file?.newText ?? preview.command?.command;
  const canSplit = (change?.hunks.length ?? 0) > 1;
  // The title names the path or command: what hides in it (a bidi override, a zero-width space)
  // is shown, not dropped by the terminal.
  const title = showInvisible(toTerminalText(preview.title));
  // The key handler reads the mode from a ref: two keys in one read (a paste, a fast typist)
  // reach the handler before React re-renders, and a stale mode could turn the first letter of
  // a reason typed after `n` into a `y`.
  const [modeRef, mode, setMode] = useKeyState<Mode>({kind: 'choose'});
  const [message, setMessage] = useState<string>();
  // One answer per prompt: several keys in one read, or keys typed before the prompt goes away,
  // give the first answer only.
  const decided = useRef(false);
  // The reason is read and extended from a ref, not from render state: keys typed faster than
  // React re-renders would otherwise each extend the same stale text and drop characters.
  const [reason, reasonText, setReason] = useKeyState('');
  const grace = useKeyGrace({now, graceMs});
  const ignoreEarly = (keys: number) => {
    const ignored = grace.ignoreEarly(keys);
    if (ignored > 0) setMessage(`Ignored ${ignored} key${ignored === 1 ? '' : 's'} typed before this prompt was ready: pause, then press one key.`);
    return ignored > 0;
  };

  const decide = (decision: Decision) => {
    if (decided.current) return;
    decided.current = true;
    onDecision(decision);
  };

  const edit = async () => {
    if (editable === undefined) {
      setMessage('Nothing to edit in this call.');
      return;
    }
    setMode({kind: 'editing'});
    setMessage(undefined);
    const suffix = preview.command ? '.sh' : extname(preview.file?.path ?? '') || '.txt';
    const result = await onEdit(editable, suffix);
    if (!result.ok) {
      setMode({kind: 'choose'});
      setMessage(result.error.message);
      return;
    }
    setMode({kind: 'choose'});
    // Quitting the editor without saving (vim's :q!) is how people back out: ask again rather
    // than take it as a yes.
    if (isUnchanged(result.value, editable, Boolean(preview.command))) setMessage('No change saved: choose again.');
    // A command from an editor ends with the newline the editor adds; the shell must not see it.
    else decide({kind: 'edit', text: preview.command ? result.value.replace(/\n+$/, '') : result.value});
  };

  const stepHunk = (accept: boolean) => {
    const current = modeRef.current;
    if (current.kind !== 'hunks' || !change) return;
    const accepted = new Set(current.accepted);
    if (accept) accepted.add(current.current);
    if (current.current + 1 < change.hunks.length) setMode({kind: 'hunks', current: current.current + 1, accepted});
    else decide(decideHunks(change, accepted));
  };

  const always = () => {
    // Without a rule list the call comes from a loop with no permission rules: the old
    // per-tool grant for this session.
    if (request.unsandboxed) setMessage('Running outside the sandbox is asked each time: press y or n.');
    else if (request.rules === undefined) decide({kind: 'always'});
    else if (request.rules.length === 0) setMessage('No rule can cover this command (it did not parse, or it writes to a file): press y or n.');
    else setMode({kind: 'scope', rules: request.rules});
  };

  const pressKey = (char: string) => {
    const mode = modeRef.current;
    if (mode.kind === 'scope') {
      if (char === 's' || char === 'p') decide({kind: 'always', rules: [...mode.rules], scope: char === 's' ? 'session' : 'project'});
    } else if (mode.kind === 'hunks') {
      if (char === 'y') stepHunk(true);
      else if (char === 'n') stepHunk(false);
    } else if (mode.kind === 'choose') {
      if (char === 'y') decide({kind: 'yes'});
      else if (char === 'a') always();
      else if (char === 'n') setMode({kind: 'reason'});
      else if (char === 'e') void edit();
      else if (char === 'h' && canSplit) {
        setMessage(undefined);
        setMode({kind: 'hunks', current: 0, accepted: new Set()});
      }
    }
  };

  // Stays active while the editor runs (Ink pauses input then anyway): switching every input
  // hook off and on again detaches Ink's stdin listener, and keys typed after could be lost.
  useInput(
    (input, key) => {
      const mode = modeRef.current;
      if (mode.kind === 'editing' || decided.current) return;
      // Only the choice can be reached by typing ahead; every later mode began with a key that counted.
      if (mode.kind === 'choose' && ignoreEarly(Math.max(1, [...input].length))) return;
      if (key.escape) {
        if (mode.kind === 'hunks' || mode.kind === 'scope') setMode({kind: 'choose'});
        else decide({kind: 'no'});
        return;
      }
      if (mode.kind === 'reason') {
        const text = reason.current.trim();
        if (key.return) decide(text ? {kind: 'no', feedback: text} : {kind: 'no'});
        else if (key.backspace || key.delete) setReason(reason.current.slice(0, -1));
        else if (input && !key.ctrl && !key.meta) setReason(reason.current + input.replace(/[\r\n]+/g, ' '));
        return;
      }
      if (key.ctrl || key.meta) return;
      // Ink hands over several keys read at once as one string ("ny", or "n" and the start of
      // a reason): take them one by one, and once `n` opened the reason, the rest is its text.
      // Any other burst at the choice (text typed ahead for the prompt, a paste in a terminal
      // without bracketed paste: "array" would be `a`, always) approves nothing.
      if (mode.kind === 'choose' && input.length > 1 && !input.startsWith('n')) {
        setMessage('Several keys arrived at once and were ignored: press one key.');
        return;
      }
      const chars = [...input];
      for (const [index, char] of chars.entries()) {
        if (decided.current) return;
        if (modeRef.current.kind === 'reason') {
          setReason(reason.current + chars.slice(index).join('').replace(/[\r\n]+/g, ' '));
          return;
        }
        pressKey(char);
      }
    },
    {isActive},
  );

  // A paste is text, never a key: it extends a reason, and is ignored anywhere else.
  usePaste(
    text => {
      if (decided.current) return;
      if (modeRef.current.kind === 'reason') setReason(reason.current + text.replace(/[\r\n]+/g, ' '));
      else if (modeRef.current.kind !== 'editing') setMessage('Pasted text is ignored here: press one key.');
    },
    {isActive},
  );

  // Rows under the preview: the key line (two when narrow, where it wraps), the warning, a message.
  const sandboxLine = request.unsandboxed ? '⚠ it failed in the sandbox; this runs it again outside the sandbox' : request.sandboxed ? 'runs in the sandbox' : null;
  const footerRows = (columns < 70 ? 2 : 1) + (preview.outside ? 1 : 0) + (preview.protectedDir ? 1 : 0) + (sandboxLine ? 1 : 0) + (message ? 1 : 0);
  const bodyRows = Math.max(3, rows - footerRows);
  const hunk = mode.kind === 'hunks' ? mode.current : undefined;

  return (
    <Box flexDirection="column" width={columns}>
      {change && preview.file ? (
        <DiffView
          key={hunk ?? 'all'}
          title={hunk === undefined ? title : `${title} · ${describeHunk(change.hunks[hunk]!, change.hunks.length)}`}
          change={change}
          hunk={hunk}
          height={bodyRows}
          width={columns}
          isActive={isActive}
        />
      ) : preview.command ? (
        <CommandView command={preview.command.command} cwd={preview.command.cwd} height={bodyRows} width={columns} />
      ) : preview.json !== undefined ? (
        <JsonView title={title} json={preview.json} height={bodyRows} width={columns} />
      ) : (
        <Text {...theme.toolName} wrap="truncate-end">
          {title}
        </Text>
      )}
      {preview.outside ? <Text {...theme.warning}>⚠ outside the workspace</Text> : null}
      {preview.protectedDir ? <Text {...theme.warning}>⚠ inside {protectedPlace(preview.protectedDir)} (always asks)</Text> : null}
      {sandboxLine ? <Text {...(request.unsandboxed ? theme.warning : theme.dim)}>{sandboxLine}</Text> : null}
      {message ? <Text {...theme.error}>{message}</Text> : null}
      <Footer mode={mode} name={request.name} canSplit={canSplit} canAlways={request.rules === undefined || request.rules.length > 0} theme={theme} reason={reasonText} isReady={grace.isReady} />
    </Box>
  );
}

/** An editor that only added the final newline it insists on has changed nothing. */
function isUnchanged(edited: string, original: string, isCommand: boolean): boolean {
  if (isCommand) return edited.trim() === original.trim();
  return edited === original || edited === `${original}\n`;
}

function Footer(props: {
  readonly mode: Mode;
  readonly name: string;
  readonly canSplit: boolean;
  /** False when no rule could cover the call: `a` then only says so, so it is not offered. */
  readonly canAlways: boolean;
  readonly theme: Theme;
  readonly reason: string;
  readonly isReady: boolean;
}) {
  const {mode, name, canSplit, theme} = props;
  const hint = (key: string, label: string) => (
    <Text>
      <Text {...theme.key}>{key}</Text> {label}
    </Text>
  );
  if (mode.kind === 'editing') return <Text {...theme.dim}>Waiting for the editor to close…</Text>;
  if (mode.kind === 'reason') {
    return (
      <Text>
        <Text {...theme.accent}>Why not? (Enter sends, Esc skips) </Text>
        {props.reason}
        <Text inverse> </Text>
      </Text>
    );
  }
  if (mode.kind === 'scope') {
    return (
      <Text>
        <Text {...theme.accent}>Always allow {mode.rules.join(', ')}? </Text>
        {hint('s', 'this session')} · {hint('p', 'this project (.nib/settings.local.json; later sessions need a trusted workspace)')} · {hint('esc', 'back')}
      </Text>
    );
  }
  if (mode.kind === 'hunks') {
    return (
      <Text>
        <Text {...theme.accent}>Apply this hunk? </Text>
        {hint('y', 'yes')} · {hint('n', 'no')} · {hint('esc', 'back')}
      </Text>
    );
  }
  // The keys appear once they count, so what is on screen says when a key will be taken.
  if (!props.isReady) return <Text {...theme.accent}>Allow {name}?</Text>;
  return (
    <Text>
      <Text {...theme.accent}>Allow {name}? </Text>
      {hint('y', 'yes')} · {props.canAlways ? <>{hint('a', 'always')} · </> : null}{hint('n', 'no')} · {hint('e', 'edit')}
      {canSplit ? <> · {hint('h', 'hunks')}</> : null} · {hint('esc', 'no')}
    </Text>
  );
}
