import {Box} from 'ink';
import {createContext, memo, use, useCallback, useEffect, useMemo, useState, type ReactNode} from 'react';
import {textRow} from './text-row.js';
import {useTheme} from './theme.js';

/** Markdown source to terminal text, wrapped to `width`. */
export type RenderMarkdown = (text: string, width: number, hasColor: boolean) => string;

/**
 * The markdown renderer, or null while it loads: then text shows as it is, and the transcript
 * holds answers back (see Transcript) so none is printed unrendered for good.
 */
export const MarkdownContext = createContext<RenderMarkdown | null>(null);

export function useMarkdown(): RenderMarkdown | null {
  return use(MarkdownContext);
}

export type Props = {
  /** Markdown source: one finished block, or the open block of a streaming answer. */
  readonly text: string;
  /** Columns available; paragraphs reflow to it. */
  readonly width: number;
};

/**
 * Renders markdown (headings, lists, emphasis, code spans, links, tables, fenced code highlighted
 * by language). Memoized on its props: a finished block renders once.
 */
export const Markdown = memo(function Markdown({text, width}: Props) {
  const {hasColor} = useTheme();
  const render = useMarkdown();
  const lines = useMemo(() => linesOf(render ? render(text, width, hasColor) : text), [render, text, width, hasColor]);
  // Prose is reflowed to the width and a table fitted to it (its rows cut if it cannot fit, see
  // markdown-table.ts); code wraps, so no character of it is lost.
  return (
    <Box flexDirection="column" width={width}>
      {lines.map((line, index) => textRow(index, line))}
    </Box>
  );
});

/** The lines of rendered text; none when it is empty (a block of only a link definition). */
export function linesOf(rendered: string): string[] {
  return rendered === '' ? [] : rendered.split('\n');
}

export type LoaderProps = {
  /** Loads the renderer (an import(), so its libraries stay out of the first frame's way). */
  readonly load: () => Promise<RenderMarkdown>;
  readonly children: ReactNode;
};

/**
 * Asks the loader for the renderer. The libraries take ~150 ms of one core to load; loaded right
 * after the first frame, they held up the first keys typed. So they load once something needs
 * them: the first item of the transcript (a prompt sent, or a resumed session).
 */
export const MarkdownRequestContext = createContext<() => void>(() => {});

/** Starts loading the renderer once `isNeeded` is true (see MarkdownRequestContext). */
export function useMarkdownWhen(isNeeded: boolean): void {
  const request = use(MarkdownRequestContext);
  useEffect(() => {
    if (isNeeded) request();
  }, [isNeeded, request]);
}

/** Provides the renderer once `load` resolves; if it fails, text stays plain rather than stuck. */
export function MarkdownLoader({load, children}: LoaderProps) {
  const [render, setRender] = useState<RenderMarkdown | null>(null);
  const [isRequested, setRequested] = useState(false);
  const request = useCallback(() => setRequested(true), []);
  useEffect(() => {
    if (!isRequested) return;
    let isCurrent = true;
    load().then(
      loaded => isCurrent && setRender(() => loaded),
      () => isCurrent && setRender(() => (text: string) => text),
    );
    return () => {
      isCurrent = false;
    };
  }, [load, isRequested]);
  return (
    <MarkdownRequestContext value={request}>
      <MarkdownContext value={render}>{children}</MarkdownContext>
    </MarkdownRequestContext>
  );
}
