import {useEffect} from 'react';
import type {McpControl} from '../agent/mcp/control.js';
import type {UiInput} from '../state/reducer.js';

/**
 * Starts the session's MCP servers after the first frame (an effect runs after Ink has drawn), so
 * a slow server never delays the prompt, and tells the person what needs them: config problems,
 * project servers waiting for approval, a server that fails.
 */
export function useMcp(mcp: McpControl | undefined, dispatch: (input: UiInput) => void): void {
  useEffect(() => {
    if (!mcp) return;
    const notice = (text: string) => dispatch({type: 'notice', text});
    for (const problem of mcp.problems) notice(`MCP: ${problem}`);
    const waiting = mcp.awaiting();
    if (waiting.length > 0) {
      notice(
        `This workspace's .mcp.json asks to start MCP servers: ${waiting.join(', ')}. They run code from this repository, so nib waits for you: /mcp approve starts them (remembered for this workspace).`,
      );
    }
    const failed = new Set<string>();
    const unsubscribe = mcp.hub.subscribe(() => {
      for (const status of mcp.statuses()) {
        if (status.state !== 'failed') failed.delete(status.name);
        else if (!failed.has(status.name)) {
          failed.add(status.name);
          notice(`MCP server "${status.name}" failed: ${status.error ?? 'no reason given'} (/mcp restart ${status.name} tries again)`);
        }
      }
    });
    mcp.start();
    return unsubscribe;
  }, [mcp, dispatch]);
}
