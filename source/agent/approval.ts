import type {ApprovalMode} from '../core/approval-mode.js';
import type {ToolKind} from '../core/tool.js';

export type Verdict = 'run' | 'ask' | 'refuse';

/**
 * Whether a call runs, asks the person, or is refused. Pure: everything it depends on is passed.
 * `canAsk` is false in print mode, where nobody is there to answer, so "ask" becomes "refuse".
 * `protectedPath`: a write into a version-control directory (`.git/config` can make the next
 * `git status` run a command). It asks in every mode, "always" and yolo included; with nobody to
 * ask it runs only in yolo, where the person said in advance that nothing needs them.
 */
export function judgeCall(input: {
  kind: ToolKind;
  mode: ApprovalMode;
  outside: boolean;
  protectedPath?: boolean;
  alwaysAllowed: boolean;
  canAsk: boolean;
}): Verdict {
  if (input.protectedPath && input.kind === 'write' && !input.outside && input.mode !== 'plan') {
    if (input.canAsk) return 'ask';
    return input.mode === 'yolo' ? 'run' : 'refuse';
  }
  const verdict = judge(input);
  return verdict === 'ask' && !input.canAsk ? 'refuse' : verdict;
}

function judge({kind, mode, outside, alwaysAllowed}: {
  kind: ToolKind;
  mode: ApprovalMode;
  outside: boolean;
  alwaysAllowed: boolean;
}): Verdict {
  if (mode === 'plan' && kind !== 'read') return 'refuse';
  // Writing outside the workspace is never covered by a mode or by "always"; reading or running
  // outside is covered by yolo only.
  if (outside) return kind !== 'write' && mode === 'yolo' ? 'run' : 'ask';
  if (kind === 'read') return 'run';
  if (alwaysAllowed) return 'run';
  if (mode === 'yolo') return 'run';
  if (mode === 'auto-edit' && kind === 'write') return 'run';
  return 'ask';
}
