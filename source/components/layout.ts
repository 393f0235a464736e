/** How the screen's rows are shared out below the transcript. Pure. */
export type RowBudget = {
  /** The live turn (reasoning, open answer block, tools in flight). */
  live: number;
  /** The approval prompt, when one is waiting. */
  approval: number;
};

const statusRows = 2;
/** While an approval waits, the live turn only needs the badges of the calls in flight. */
const liveRowsDuringApproval = 3;

export function budgetRows(input: {rows: number; inputLines: number; menuRows: number; queued: number; isApproving: boolean}): RowBudget {
  const fixed = statusRows + (input.isApproving ? 0 : input.inputLines + input.menuRows + input.queued) + 1;
  const free = Math.max(1, input.rows - fixed);
  if (!input.isApproving) return {live: free, approval: 0};
  const live = Math.min(liveRowsDuringApproval, Math.floor(free / 3));
  return {live, approval: Math.max(1, free - live)};
}

/**
 * The rows the prompt may take: what is left once the status lines, the completion list, the
 * queued messages and a few rows of the live turn have theirs (a taller prompt scrolls).
 */
export function promptMaxRows(input: {rows: number; menuRows: number; queued: number}): number {
  return Math.max(2, input.rows - statusRows - 1 - input.menuRows - input.queued - minLiveRows);
}
const minLiveRows = 4;

/** The first row of a list scrolled so that `selected` is in the last of `visible` rows at most. */
export function firstVisible(selected: number, count: number, visible: number): number {
  return Math.min(Math.max(0, selected - visible + 1), Math.max(0, count - visible));
}
