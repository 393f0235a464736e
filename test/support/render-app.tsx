import {render} from 'ink-testing-library';
import type {AgentSession} from '../../source/agent/session/agent-session.js';
import {createPromptHistory} from '../../source/agent/session/prompt-history.js';
import {App} from '../../source/app.js';
import {MarkdownContext} from '../../source/components/Markdown.js';
import {renderMarkdown} from './markdown.js';
import {createTheme, ThemeContext} from '../../source/components/theme.js';
import type {TypedAhead} from '../../source/early-prompt.js';
import type {LoadCommands} from '../../source/hooks/use-commands.js';
import {plain, typist} from '../components/helpers.js';

/** The app as runInteractive mounts it, over a real session, in ink-testing-library. */
export async function renderApp(
  session: AgentSession,
  options: {historyFile: string; history?: readonly string[]; prompt?: string; openPicker?: boolean; typedAhead?: TypedAhead; loadCommands?: LoadCommands},
) {
  const store = createPromptHistory(options.historyFile);
  for (const entry of options.history ?? []) await store.append(entry);
  const initialHistory = await store.load();
  const app = render(
    <ThemeContext value={createTheme({})}>
      <MarkdownContext value={renderMarkdown}>
        <App
          session={session}
          history={store}
          initialHistory={initialHistory}
          cwdLabel="~/project"
          {...(options.prompt ? {initialPrompt: options.prompt} : {})}
          {...(options.openPicker ? {openPicker: true} : {})}
          {...(options.typedAhead ? {typedAhead: options.typedAhead} : {})}
          {...(options.loadCommands ? {loadCommands: options.loadCommands} : {})}
        />
      </MarkdownContext>
    </ThemeContext>,
  );
  return {
    ...app,
    type: typist(app.stdin),
    screen: () => plain(app.lastFrame()),
    everything: () => plain(app.frames.join('\n')),
  };
}
