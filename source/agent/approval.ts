import type {ApprovalMode} from '../core/approval-mode.js';
import type {ToolKind} from '../core/tool.js';
import type {RuleKind} from './guard/rules.js';

export type Verdict = 'run' | 'ask' | 'refuse';

export type CallJudgement = {
  kind: ToolKind;
  mode: ApprovalMode;
  outside: boolean;
  protectedPath?: boolean;
  alwaysAllowed: boolean;
  canAsk: boolean;
  /** The strongest permission rule that applies (guard/rules.ts), if any. */
  rule?: RuleKind | null;
  /** The call runs inside the sandbox. */
  sandboxed?: boolean;
};

/**
 * Whether a call runs, asks the person, or is refused. Pure: everything it depends on is passed.
 * `canAsk` is false in print mode, where nobody is there to answer, so "ask" becomes "refuse".
 * `protectedPath`: a write into a version-control directory (`.git/config` can make the next
 * `git status` run a command). It asks in every mode, "always", allow rules and yolo included;
 * with nobody to ask it runs only in yolo, where the person said in advance that nothing needs them.
 */
export function judgeCall(input: CallJudgement): Verdict {
  // A deny rule is the person's explicit word: no mode, yolo included, overrides it.
  if (input.rule === 'deny') return 'refuse';
  if (input.protectedPath && input.kind === 'write' && !input.outside && input.mode !== 'plan') {
    if (input.canAsk) return 'ask';
    return input.mode === 'yolo' ? 'run' : 'refuse';
  }
  const verdict = judge(input);
  return verdict === 'ask' && !input.canAsk ? 'refuse' : verdict;
}

function judge({kind, mode, outside, alwaysAllowed, rule, sandboxed}: CallJudgement): Verdict {
  if (mode === 'plan' && kind !== 'read') return 'refuse';
  if (rule === 'ask') return 'ask';
  // Writing outside the workspace is never covered by a mode, a rule or "always"; reading or
  // running outside is covered by yolo only.
  if (outside) return kind !== 'write' && mode === 'yolo' ? 'run' : 'ask';
  if (kind === 'read') return 'run';
  if (rule === 'allow' || alwaysAllowed) return 'run';
  if (mode === 'yolo') return 'run';
  // A sandboxed command can only write the workspace, which auto-edit already lets writes do.
  if (mode === 'auto-edit' && (kind === 'write' || sandboxed)) return 'run';
  return 'ask';
}
