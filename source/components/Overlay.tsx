import type {SessionSummary} from '../agent/session/saved.js';
import type {RewindScope} from '../agent/session/agent-session.js';
import type {RewindPoint} from '../agent/session/rewind.js';
import type {Overlay as OverlayState} from '../state/reducer.js';
import {ModelPicker} from './ModelPicker.js';
import {McpApprove} from './McpApprove.js';
import {RewindPicker} from './RewindPicker.js';
import {SessionPicker} from './SessionPicker.js';
import {UndoConfirm} from './UndoConfirm.js';

export type Props = {
  /** The question the reducer holds. */
  readonly overlay: OverlayState;
  readonly rows: number;
  readonly width: number;
  /** A session chosen in the picker, or null when the person left it. */
  readonly onPick: (session: SessionSummary | null) => void;
  /** The answer to the undo question. */
  readonly onUndo: (yes: boolean) => void;
  /** A model chosen in the model picker, or null when the person left it. */
  readonly onModel: (model: string | null) => void;
  /** The answer to starting the project's MCP servers. */
  readonly onMcpApprove: (yes: boolean) => void;
  /** The prompt and scope chosen in the rewind list, or null when the person left it. */
  readonly onRewind: (point: RewindPoint | null, scope: RewindScope) => void;
};

/** What is shown in place of the prompt until the person answers. */
export function Overlay({overlay, rows, width, onPick, onUndo, onModel, onMcpApprove, onRewind}: Props) {
  // The three pickers (models, sessions, rewind points) get the same height.
  const listRows = Math.max(4, rows - 4);
  if (overlay.kind === 'mcp-approve') return <McpApprove servers={overlay.servers} width={width} onAnswer={onMcpApprove} />;
  if (overlay.kind === 'model') {
    return (
      <ModelPicker
        models={overlay.models}
        current={overlay.current}
        rows={listRows}
        width={width}
        onCancel={() => onModel(null)}
        onPick={onModel}
      />
    );
  }
  if (overlay.kind === 'picker') {
    return (
      <SessionPicker
        sessions={overlay.sessions}
        rows={listRows}
        width={width}
        onCancel={() => onPick(null)}
        cancelLabel={overlay.cancelLabel}
        onPick={onPick}
      />
    );
  }
  if (overlay.kind === 'rewind') {
    return (
      <RewindPicker
        items={overlay.points}
        rows={listRows}
        width={width}
        onCancel={() => onRewind(null, 'both')}
        onPick={(item, scope) => onRewind(overlay.points.find(point => point.turn === item.turn) ?? null, scope)}
      />
    );
  }
  return (
    <UndoConfirm
      title={
        overlay.rewind
          ? `Rewind the ${overlay.rewind.scope === 'both' ? 'conversation and files' : 'files'} to before turn ${overlay.label}`
          : `Undo turn ${overlay.label}${overlay.turn === undefined ? '' : ' and later'}`
      }
      changes={overlay.changes}
      conflicts={overlay.conflicts}
      rows={Math.max(6, rows - 4)}
      width={width}
      onAnswer={onUndo}
    />
  );
}
