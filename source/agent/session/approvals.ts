import type {ApprovalRequest, Decision} from '../../core/events.js';

/**
 * Approval requests waiting for the person. The screen draws a request from its event, before
 * the loop has called wait(): an answer given in that moment is kept for it, not lost.
 */
export class Approvals {
  private readonly pending = new Map<string, (decision: Decision) => void>();
  private readonly early = new Map<string, Decision>();

  /** The loop's approve callback: resolves with the person's answer; forgotten on abort. */
  wait(request: ApprovalRequest, signal: AbortSignal): Promise<Decision> {
    return new Promise(resolve => {
      const answered = this.early.get(request.id);
      if (answered) {
        this.early.delete(request.id);
        return resolve(answered);
      }
      this.pending.set(request.id, resolve);
      signal.addEventListener('abort', () => this.pending.delete(request.id), {once: true});
    });
  }

  /** The first answer to a request counts, whether or not the loop was waiting yet. */
  answer(id: string, decision: Decision): void {
    const resolve = this.pending.get(id);
    if (!resolve) {
      if (!this.early.has(id)) this.early.set(id, decision);
      return;
    }
    this.pending.delete(id);
    resolve(decision);
  }

  /** A new turn: answers kept for the last one's requests mean nothing now. */
  reset(): void {
    this.early.clear();
  }
}
