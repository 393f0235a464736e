import {useEffect} from 'react';
import type {McpControl} from '../agent/mcp/control.js';
import type {UiInput} from '../state/reducer.js';

/**
 * Starts the session's MCP servers after the first frame (an effect runs after Ink has drawn), so
 * a slow server never delays the prompt. Asks once per workspace about the project's servers, and
 * tells the person about config problems and a server that fails.
 */
export function useMcp(mcp: McpControl | undefined, dispatch: (input: UiInput) => void): void {
  useEffect(() => {
    if (!mcp) return;
    const notice = (text: string) => dispatch({type: 'notice', text});
    for (const problem of mcp.problems) notice(`MCP: ${problem}`);
    const waiting = new Set(mcp.awaiting());
    if (waiting.size > 0) {
      const servers = mcp.hub.servers.filter(server => waiting.has(server.name)).map(server => ({name: server.name, runs: describeEntry(server.entry)}));
      dispatch({type: 'show-overlay', overlay: {kind: 'mcp-approve', servers}});
    }
    const failed = new Set<string>();
    // Said once per server and line: a tools/list_changed lists the same bad tool again.
    const saidInvalid = new Set<string>();
    const unsubscribe = mcp.hub.subscribe(() => {
      for (const status of mcp.statuses()) {
        for (const line of status.invalid) {
          const key = `${status.name}\0${line}`;
          if (saidInvalid.has(key)) continue;
          saidInvalid.add(key);
          notice(`MCP server "${status.name}": ${line}`);
        }
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

/** y on the project-server question: approve (remembered) and start; n: they wait for /mcp approve. */
export async function answerMcpApprove(mcp: McpControl | undefined, dispatch: (input: UiInput) => void, yes: boolean): Promise<void> {
  dispatch({type: 'close-overlay'});
  if (!mcp) return;
  if (!yes) {
    dispatch({type: 'notice', text: `Project MCP servers not started: ${mcp.awaiting().join(', ')}. /mcp approve starts them later.`});
    return;
  }
  const approved = await mcp.approve();
  dispatch({type: 'notice', text: approved.ok ? `Starting MCP servers: ${approved.value.join(', ')} (approved for this workspace; /mcp shows them)` : approved.error});
}

/** The command line or URL an entry runs, unexpanded, as the person would review it. */
function describeEntry(entry: {command?: string; args?: string[]; url?: string; httpUrl?: string}): string {
  if (entry.command) return [entry.command, ...(entry.args ?? [])].join(' ');
  return entry.url ?? entry.httpUrl ?? '(no command or URL)';
}
