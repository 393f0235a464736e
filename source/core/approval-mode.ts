/**
 * ask:       write and exec ask.
 * auto-edit: writes inside the workspace run (not into .git/ and other VCS dirs); exec asks.
 * yolo:      nothing asks, except writes outside the workspace or into a VCS dir.
 * plan:      only read tools are offered to the model.
 */
export const APPROVAL_MODES = ['ask', 'auto-edit', 'yolo', 'plan'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

export function isApprovalMode(value: string): value is ApprovalMode {
  return (APPROVAL_MODES as readonly string[]).includes(value);
}

export function nextMode(mode: ApprovalMode): ApprovalMode {
  const index = APPROVAL_MODES.indexOf(mode);
  return APPROVAL_MODES[(index + 1) % APPROVAL_MODES.length]!;
}
