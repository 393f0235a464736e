import {createContext, use} from 'react';

/**
 * The styling of one kind of text, spread straight onto Ink's `<Text>`:
 * `<Text {...theme.added}>`. Only `<Text>` props, so a style can never carry layout.
 */
export type Style = {
  readonly color?: string;
  readonly backgroundColor?: string;
  readonly dimColor?: boolean;
  readonly bold?: boolean;
  readonly italic?: boolean;
  readonly underline?: boolean;
  readonly inverse?: boolean;
};

/** Every color and emphasis nib uses, by role. Components name roles, never colors. */
export type Theme = {
  /** False when NO_COLOR is set: the theme then carries no color at all, only emphasis. */
  readonly hasColor: boolean;
  readonly text: Style;
  readonly dim: Style;
  readonly bold: Style;
  readonly accent: Style;
  readonly success: Style;
  readonly warning: Style;
  readonly error: Style;
  /** The person's own prompts in the transcript. */
  readonly user: Style;
  /** Tool names in badges and approval headers. */
  readonly toolName: Style;
  /** Key names in hints: the `y` of `y yes`. */
  readonly key: Style;
  /** Reasoning tokens while they stream. */
  readonly reasoning: Style;
  /** Diffs: whole added / removed lines. */
  readonly added: Style;
  readonly removed: Style;
  /** Diffs: the changed words inside a changed line. */
  readonly addedWord: Style;
  readonly removedWord: Style;
  /** Diffs: `@@ -1,4 +1,5 @@` lines. */
  readonly hunkHeader: Style;
  /** Diffs: the old/new line number gutter. */
  readonly gutter: Style;
  /** A shell command shown for approval. */
  readonly command: Style;
};

const colored: Theme = {
  hasColor: true,
  text: {},
  dim: {dimColor: true},
  bold: {bold: true},
  accent: {color: 'cyan'},
  success: {color: 'green'},
  warning: {color: 'yellow'},
  error: {color: 'red'},
  user: {color: 'blue', bold: true},
  toolName: {bold: true},
  key: {color: 'cyan', bold: true},
  reasoning: {dimColor: true, italic: true},
  added: {color: 'green'},
  removed: {color: 'red'},
  addedWord: {color: 'black', backgroundColor: 'green'},
  removedWord: {color: 'black', backgroundColor: 'red'},
  hunkHeader: {color: 'cyan'},
  gutter: {dimColor: true},
  command: {color: 'yellow', bold: true},
};

// NO_COLOR (no-color.org) forbids color, not emphasis: changed words stay findable by underline,
// and `+`/`-` markers already tell additions from removals. dimColor goes too: it is an SGR
// color attribute and some terminals render it as gray.
const plain: Theme = {
  hasColor: false,
  text: {},
  dim: {},
  bold: {bold: true},
  accent: {},
  success: {},
  warning: {bold: true},
  error: {bold: true},
  user: {bold: true},
  toolName: {bold: true},
  key: {bold: true},
  reasoning: {italic: true},
  added: {},
  removed: {},
  addedWord: {underline: true},
  removedWord: {underline: true},
  hunkHeader: {bold: true},
  gutter: {},
  command: {bold: true},
};

/** NO_COLOR set to any non-empty value turns color off (no-color.org). */
function isColorWanted(env: NodeJS.ProcessEnv): boolean {
  return !env['NO_COLOR'];
}

export function createTheme(env: NodeJS.ProcessEnv): Theme {
  return isColorWanted(env) ? colored : plain;
}

/**
 * The theme for the tree below. The default reads the real environment once; tests and the app
 * may provide another (`<ThemeContext value={createTheme({NO_COLOR: '1'})}>`).
 */
export const ThemeContext = createContext<Theme>(createTheme(process.env));

export function useTheme(): Theme {
  return use(ThemeContext);
}
