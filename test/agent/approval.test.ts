import {describe, expect, test} from 'vitest';
import {APPROVAL_MODES, nextMode, type ApprovalMode} from '../../source/core/approval-mode.js';
import {judgeCall, type Verdict} from '../../source/agent/approval.js';
import type {ToolKind} from '../../source/core/tool.js';

const judge = (kind: ToolKind, mode: ApprovalMode, outside = false, alwaysAllowed = false, canAsk = true): Verdict =>
  judgeCall({kind, mode, outside, alwaysAllowed, canAsk});

describe('judgeCall', () => {
  test('inside the workspace: reads run; writes and commands follow the mode', () => {
    const table = Object.fromEntries(
      APPROVAL_MODES.map(mode => [mode, (['read', 'write', 'exec'] as const).map(kind => judge(kind, mode))]),
    );
    expect(table).toEqual({
      ask: ['run', 'ask', 'ask'],
      'auto-edit': ['run', 'run', 'ask'],
      yolo: ['run', 'run', 'run'],
      plan: ['run', 'refuse', 'refuse'],
    });
  });

  test('writing outside the workspace asks in every mode, "always" included; plan refuses it', () => {
    for (const mode of APPROVAL_MODES) {
      for (const always of [false, true]) {
        expect(judge('write', mode, true, always)).toBe(mode === 'plan' ? 'refuse' : 'ask');
      }
    }
  });

  test('reading or running outside asks unless yolo; "always" does not cover outside', () => {
    expect(judge('read', 'ask', true)).toBe('ask');
    expect(judge('read', 'auto-edit', true)).toBe('ask');
    expect(judge('read', 'plan', true)).toBe('ask');
    expect(judge('read', 'yolo', true)).toBe('run');
    expect(judge('exec', 'auto-edit', true, true)).toBe('ask');
    expect(judge('exec', 'yolo', true)).toBe('run');
  });

  test('"always" lets a tool run inside without asking, but never past plan mode', () => {
    expect(judge('exec', 'ask', false, true)).toBe('run');
    expect(judge('write', 'ask', false, true)).toBe('run');
    expect(judge('exec', 'plan', false, true)).toBe('refuse');
  });

  test('with nobody to ask (print mode) every "ask" becomes "refuse"; nothing else changes', () => {
    for (const mode of APPROVAL_MODES) {
      for (const kind of ['read', 'write', 'exec'] as const) {
        for (const outside of [false, true]) {
          const interactive = judge(kind, mode, outside);
          expect(judge(kind, mode, outside, false, false)).toBe(interactive === 'ask' ? 'refuse' : interactive);
        }
      }
    }
  });

  test('a write into a version-control directory asks in every mode, "always" and yolo included; plan refuses it', () => {
    for (const mode of APPROVAL_MODES) {
      for (const alwaysAllowed of [false, true]) {
        const verdict = judgeCall({kind: 'write', mode, outside: false, protectedPath: true, alwaysAllowed, canAsk: true});
        expect(verdict).toBe(mode === 'plan' ? 'refuse' : 'ask');
      }
    }
  });

  test('with nobody to ask, a protected write runs only in yolo; reads and commands are not affected', () => {
    const verdicts = APPROVAL_MODES.map(mode => judgeCall({kind: 'write', mode, outside: false, protectedPath: true, alwaysAllowed: true, canAsk: false}));
    expect(verdicts).toEqual(['refuse', 'refuse', 'run', 'refuse']);
    for (const mode of APPROVAL_MODES) {
      for (const kind of ['read', 'exec'] as const) {
        expect(judgeCall({kind, mode, outside: false, protectedPath: true, alwaysAllowed: false, canAsk: true})).toBe(judge(kind, mode));
      }
    }
    // Outside the workspace the stricter rule wins: print mode refuses it even in yolo.
    expect(judgeCall({kind: 'write', mode: 'yolo', outside: true, protectedPath: true, alwaysAllowed: false, canAsk: false})).toBe('refuse');
  });

  test('nextMode cycles through every mode', () => {
    expect(APPROVAL_MODES.map(nextMode)).toEqual(['auto-edit', 'yolo', 'plan', 'ask']);
  });

  test('a deny rule refuses in every mode, yolo included; an ask rule asks even in yolo', () => {
    for (const mode of APPROVAL_MODES) {
      expect(judgeCall({kind: 'exec', mode, outside: false, alwaysAllowed: true, canAsk: true, rule: 'deny'})).toBe('refuse');
      expect(judgeCall({kind: 'read', mode, outside: false, alwaysAllowed: false, canAsk: true, rule: 'deny'})).toBe('refuse');
    }
    expect(judgeCall({kind: 'exec', mode: 'yolo', outside: false, alwaysAllowed: false, canAsk: true, rule: 'ask'})).toBe('ask');
    expect(judgeCall({kind: 'exec', mode: 'yolo', outside: false, alwaysAllowed: false, canAsk: false, rule: 'ask'})).toBe('refuse');
  });

  test('an allow rule runs the call in ask mode, but not a write outside, and not in plan mode', () => {
    expect(judgeCall({kind: 'exec', mode: 'ask', outside: false, alwaysAllowed: false, canAsk: false, rule: 'allow'})).toBe('run');
    expect(judgeCall({kind: 'write', mode: 'ask', outside: true, alwaysAllowed: false, canAsk: true, rule: 'allow'})).toBe('ask');
    expect(judgeCall({kind: 'exec', mode: 'plan', outside: false, alwaysAllowed: false, canAsk: true, rule: 'allow'})).toBe('refuse');
  });

  test('auto-edit runs sandboxed commands without asking; unsandboxed ones still ask', () => {
    const call = {kind: 'exec' as const, outside: false, alwaysAllowed: false, canAsk: false};
    expect(judgeCall({...call, mode: 'auto-edit', sandboxed: true})).toBe('run');
    expect(judgeCall({...call, mode: 'auto-edit', sandboxed: false})).toBe('refuse');
    expect(judgeCall({...call, mode: 'ask', sandboxed: true})).toBe('refuse');
  });
});
