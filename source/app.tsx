import {Box, Text, useApp, useWindowSize} from 'ink';
import {useEffect, useMemo, useRef, useState} from 'react';
import type {AgentSession} from './agent/session/agent-session.js';
import type {PromptHistory} from './agent/session/prompt-history.js';
import {answerRewind, answerUndo, openPicker, openRewind, pickSession} from './commands/session-commands.js';
import {openModelPicker, pickModel} from './commands/model-commands.js';
import {runSlashCommand, slashCommands, type SlashCommand} from './commands/slash.js';
import {ApprovalPrompt} from './components/ApprovalPrompt.js';
import {budgetRows, promptMaxRows} from './components/layout.js';
import {countPromptRows} from './components/prompt-rows.js';
import {LiveTurn} from './components/LiveTurn.js';
import {Overlay} from './components/Overlay.js';
import {PromptInput, slashMatches, slashMenuRows, type CompletionList} from './components/PromptInput.js';
import {StatusBar} from './components/StatusBar.js';
import {Transcript} from './components/Transcript.js';
import {useExternalEditor} from './hooks/use-external-editor.js';
import {useHistory} from './hooks/use-history.js';
import {useMentionSearch} from './hooks/use-mention-search.js';
import {answerMcpApprove, useMcp} from './hooks/use-mcp.js';
import {useRedraw} from './hooks/use-redraw.js';
import {useStableCallback} from './hooks/use-stable-callback.js';
import {useCommands, type LoadCommands} from './hooks/use-commands.js';
import {useSession} from './hooks/use-session.js';
import {useSessionKeys} from './hooks/use-session-keys.js';
import {typingMention} from './core/mentions.js';
import {commandCall} from './core/text.js';
import {IDLE_PLACEHOLDER, type TypedAhead} from './early-prompt.js';

export type AppProps = {
  readonly session: AgentSession;
  readonly history: PromptHistory;
  /** Earlier prompts, loaded before the session opens. */
  readonly initialHistory: readonly string[];
  /** Sent as soon as the session opens (`nib "fix the test"`). */
  readonly initialPrompt?: string;
  /** Keys typed before the app loaded (see early-prompt.ts): the draft, or a prompt sent with Enter. */
  readonly typedAhead?: TypedAhead;
  /** The working directory as the status bar shows it. */
  readonly cwdLabel: string;
  /** Slash commands on offer (the default table unless a test narrows it). */
  readonly commands?: readonly SlashCommand[];
  /** Reads the commands again, custom ones from their folders (see useCommands). */
  readonly loadCommands?: LoadCommands;
  /** Open the session picker first (`nib --resume` without an id). */
  readonly openPicker?: boolean;
  /** Aborted on SIGTERM/SIGHUP: the turn is interrupted (its command killed), then the app exits. */
  readonly stop?: AbortSignal;
  /** Shown once at start (custom commands overridden or not loaded). */
  readonly notices?: readonly string[];
};

/** The interactive session: subscribes to the session and hands its state to the components. */
export function App({session, history, initialHistory, initialPrompt, typedAhead, cwdLabel, commands: commandsGiven = slashCommands, loadCommands, openPicker: pickFirst, stop, notices}: AppProps) {
  const {exit} = useApp();
  const {columns, rows} = useWindowSize();
  const width = Math.max(20, columns);
  const {count: redrawn, redraw} = useRedraw();
  // Set when nib leaves after the running turn winds down (SIGTERM, SIGHUP, Ctrl+C twice).
  const [isStopping, setStopping] = useState(false);
  // Prompts queued for after the turn are not sent when nib is leaving instead.
  const {state, dispatch, submit: send} = useSession(session, {holdQueue: isStopping});
  useMcp(session.mcp, dispatch);
  const prompts = useHistory(history, initialHistory);
  const edit = useExternalEditor();
  const [input, setInput] = useState(typedAhead && !typedAhead.sent ? typedAhead.text : '');
  const approval = state.approvals[0];
  const isApproving = approval !== undefined;
  const overlay = state.overlay;

  const {commands, reload: reloadCommands} = useCommands(commandsGiven, loadCommands, text => dispatch({type: 'notice', text}), notices);
  // Started in the order typed: a slash command waits for its folders to be read, and a prompt
  // sent just after it must not overtake it (a command that runs long, /compact, holds nothing).
  const submitted = useRef<Promise<unknown>>(Promise.resolve());
  // Stable, so the prompt line (memoized) is not drawn again on every frame of an answer.
  const submit = useStableCallback((text: string) => {
    setInput('');
    // A `!` alone is neither a command nor a question for the model.
    if (text.trim() === '!') return dispatch({type: 'notice', text: '! runs the shell command typed after it, e.g. !git status (its output goes to the model with your next prompt).'});
    prompts.add(text);
    const ready = submitted.current.then(() => (commandCall(text) ? reloadCommands() : commands));
    submitted.current = ready;
    void ready
      .then(current => runSlashCommand(text, {state, dispatch, session, submit: send, exit, width, redraw, commands: current}))
      .then(isCommand => {
        if (!isCommand) send(text);
      });
  });
  const changeInput = useStableCallback((value: string) => {
    // The `/` menu opening: its list is read again.
    if (value === '/' && input === '') void reloadCommands();
    setInput(value);
  });

  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    for (const text of notices ?? []) dispatch({type: 'notice', text});
    // A prompt from the command line is sent as if typed (slash commands run, history keeps it);
    // when a picker comes first, it waits in the input for Enter once a choice is made.
    if (pickFirst || session.chooseModel) {
      if (initialPrompt) setInput(initialPrompt);
      if (pickFirst) void openPicker(session, dispatch);
      else openModelPicker(session, dispatch);
    } else if (initialPrompt) submit(initialPrompt);
    else if (typedAhead?.sent) submit(typedAhead.text);
  }, [pickFirst, initialPrompt, typedAhead, session, dispatch, submit, notices]);

  // Exits once the interrupted turn has wound down: its command group is killed and its events are
  // in the session log.
  useEffect(() => {
    if (!stop) return;
    const onStop = () => {
      session.interrupt();
      setStopping(true);
    };
    if (stop.aborted) onStop();
    else stop.addEventListener('abort', onStop, {once: true});
    return () => stop.removeEventListener('abort', onStop);
  }, [stop, session]);
  useEffect(() => {
    if (!isStopping) return;
    if (!state.busy) return exit();
    // A turn that does not wind down (longer than a command's kill grace) does not keep nib open.
    const timer = setTimeout(exit, 5000);
    return () => clearTimeout(timer);
  }, [isStopping, state.busy, exit]);
  // Ctrl+C twice or Ctrl+D during a turn: the same, so the last screen shows the turn interrupted
  // rather than a command still running. Asked again while winding down, nib exits at once.
  const quit = useStableCallback(() => {
    if (!state.busy || isStopping) return exit();
    session.interrupt();
    setStopping(true);
  });

  // The completion list open under the prompt: its Esc closes it, and the key hints are its own.
  const [list, setList] = useState<CompletionList | null>(null);
  const {isExitArmed} = useSessionKeys({
    isBusy: state.busy,
    isInputEmpty: input === '',
    isActive: !isApproving && overlay === null,
    isListOpen: list !== null,
    onInterrupt: () => session.interrupt(),
    onClearInput: () => setInput(''),
    onExit: () => quit(),
    onCycleMode: () => session.cycleMode(),
    onRewind: () => openRewind(session, dispatch),
  });
  const mentionSearch = useMentionSearch(session.root, state.busy);

  const editPrompt = useStableCallback(async () => {
    const result = await edit(input, '.md');
    if (result.ok) setInput(result.value.replace(/\n+$/, ''));
  });

  // The @ list's length is not known here; its rows are budgeted whenever an @ is being typed.
  const menuRows = typingMention(input) ? slashMenuRows : Math.min(slashMenuRows, slashMatches(input, commands).length);
  const promptRows = promptMaxRows({rows, menuRows, queued: state.queue.length});
  // The prompt's text starts two columns in (its mark and a space).
  const inputLines = useMemo(() => Math.min(promptRows, countPromptRows(input, width - 2, promptRows)), [input, width, promptRows]);
  const budget = budgetRows({rows, inputLines, menuRows, queued: state.queue.length, isApproving});

  return (
    <>
      <Transcript items={state.transcript} epoch={state.epoch} layout={redrawn} width={width} />
      <Box flexDirection="column" width={width}>
        <LiveTurn live={state.live} now={state.now} width={width} maxRows={budget.live} />
        {overlay ? (
          <Overlay
            overlay={overlay}
            rows={rows}
            width={width}
            onPick={picked => void pickSession(session, dispatch, picked?.id ?? null)}
            onUndo={yes => overlay.kind === 'undo' && void answerUndo(session, dispatch, yes, overlay).then(prompt => prompt !== null && setInput(prompt))}
            onModel={model => pickModel(session, dispatch, model)}
            onMcpApprove={yes => void answerMcpApprove(session.mcp, dispatch, yes)}
            onRewind={(point, scope) => void answerRewind(session, dispatch, point, scope).then(prompt => prompt !== null && setInput(prompt))}
          />
        ) : approval ? (
          <ApprovalPrompt
            key={approval.id}
            request={approval}
            rows={budget.approval}
            columns={width}
            onDecision={decision => session.answer(approval.id, decision)}
            onEdit={edit}
          />
        ) : (
          <>
            {state.queue.map((queued, index) => (
              <Text key={index} dimColor wrap="truncate-end">
                queued: {queued.split('\n', 1)[0]}
              </Text>
            ))}
            <PromptInput
              value={input}
              onChange={changeInput}
              onSubmit={submit}
              history={prompts.entries}
              commands={commands}
              mentionSearch={mentionSearch}
              onList={setList}
              isActive={!isApproving}
              onEditInEditor={editPrompt}
              width={width}
              maxRows={promptRows}
              placeholder={state.busy ? 'working… type to queue a message' : IDLE_PLACEHOLDER}
            />
          </>
        )}
        <StatusBar
          model={state.model}
          mode={state.mode}
          alwaysTools={state.alwaysTools}
          alwaysRules={state.alwaysRules}
          promptTokens={state.usage.promptTokens}
          completionTokens={state.usage.completionTokens}
          contextTokens={state.context.tokens}
          contextWindow={state.context.window}
          cwd={cwdLabel}
          keyState={isExitArmed && input === '' ? 'confirm-exit' : isApproving || overlay !== null ? 'approval' : (list ?? (state.busy ? 'busy' : 'idle'))}
          width={width}
        />
      </Box>
    </>
  );
}
