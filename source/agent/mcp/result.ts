import type {ToolResult} from '../../core/tool.js';
import {LIMITS} from '../../core/limits.js';
import {isObject} from '../provider/wire.js';
import {formatBytes} from '../../tools/fs/text.js';
import {OutputKeeper} from '../../tools/output.js';

/** The parts of an MCP `tools/call` result nib reads; everything else a server sends is ignored. */
export type McpCallResult = {
  /** A list of blocks; anything else from a server is said to be unreadable. */
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
  /** Servers of the 2024-10-07 protocol answer with this instead of `content`. */
  toolResult?: unknown;
};

type Block = {type?: unknown; text?: unknown; data?: unknown; mimeType?: unknown; uri?: unknown; resource?: unknown};

/**
 * Text for the model from a call result: text blocks joined, `structuredContent` as JSON, and a
 * one-line note for each image, audio clip or resource (the model cannot see the bytes, and a
 * base64 blob would only eat its context). Kept to bash's head + tail bound, with the whole text
 * spilled to a temp file when it is larger.
 */
export async function toToolResult(
  result: McpCallResult,
  label: string,
  options: {spillDir?: string; redact?: (text: string) => string} = {},
): Promise<ToolResult> {
  const parts: string[] = [];
  const texts: string[] = [];
  // Each block on its own: one a server got wrong becomes a note, and the others still count.
  const blocks = Array.isArray(result.content) ? result.content : [];
  if (result.content !== undefined && !Array.isArray(result.content)) parts.push('[unreadable content: the server sent something other than a list]');
  for (const raw of blocks) {
    const block = (isObject(raw) ? raw : {}) as Block;
    if (block.type === 'text' && typeof block.text === 'string') {
      parts.push(block.text);
      texts.push(block.text);
    } else {
      parts.push(noteOf(block));
    }
  }
  // The spec asks servers to repeat structured content as JSON text; say it once.
  if (result.structuredContent !== undefined && !texts.some(text => sameJson(text, result.structuredContent))) {
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  if (result.content === undefined && result.toolResult !== undefined) parts.push(JSON.stringify(result.toolResult, null, 2));
  const bounded = await boundText(parts.join('\n'), options);
  const isError = result.isError === true;
  const content = bounded.text || (isError ? `${label} failed and said nothing more.` : '(no output)');
  const size = formatBytes(bounded.bytes);
  return {
    isError,
    content,
    ...(isError ? {code: 'mcp-error'} : {}),
    detail: {summary: isError ? `error · ${size}` : size},
  };
}

/**
 * Text from a server kept to bash's head + tail bound, the whole of it spilled to a temp file
 * when it is larger; `bytes` is its size before the cut.
 */
export async function boundText(text: string, options: {spillDir?: string; redact?: (text: string) => string} = {}): Promise<{text: string; bytes: number}> {
  const keeper = new OutputKeeper(LIMITS.bashHeadBytes, LIMITS.bashTailBytes, options.spillDir, options.redact);
  const bytes = Buffer.from(text, 'utf8');
  keeper.push(bytes);
  await keeper.close();
  return {text: keeper.render(), bytes: bytes.length};
}

function noteOf(block: Block): string {
  const mime = typeof block.mimeType === 'string' ? block.mimeType : 'unknown type';
  switch (block.type) {
    case 'text':
      return '[text: unreadable, its text is not a string]';
    case 'image':
    case 'audio':
      if (!isBase64(block.data)) return `[${block.type}: ${mime}, unreadable: its data is not base64]`;
      return `[${block.type}: ${mime}, ${formatBytes(base64Bytes(block.data))}]`;
    case 'resource': {
      const resource = (block.resource ?? {}) as {uri?: unknown; mimeType?: unknown; text?: unknown; blob?: unknown};
      const type = typeof resource.mimeType === 'string' ? resource.mimeType : 'unknown type';
      if (typeof resource.text !== 'string' && !isBase64(resource.blob)) {
        return `[resource ${String(resource.uri ?? '')}: ${type}, unreadable: neither text nor base64 data]`;
      }
      const size = typeof resource.text === 'string' ? Buffer.byteLength(resource.text) : base64Bytes(resource.blob);
      return `[resource ${String(resource.uri ?? '')}: ${type}, ${formatBytes(size)}]`;
    }
    case 'resource_link':
      return `[resource link ${String(block.uri ?? '')}: ${mime}]`;
    default:
      return `[${String(block.type ?? 'unknown')} content]`;
  }
}

/** The SDK's rule (what atob accepts), so nib calls unreadable what a strict client would refuse. */
function isBase64(data: unknown): data is string {
  if (typeof data !== 'string') return false;
  try {
    atob(data);
    return true;
  } catch {
    return false;
  }
}

function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    // Plain prose, not JSON: it cannot be the structured content repeated.
    return false;
  }
}
