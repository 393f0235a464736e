import {fail, type ResolvedPath, type FsResult} from './workspace.js';

const BOM = '\uFEFF';

/** How a file spells its text: what write and edit must keep when they change it. */
export type TextStyle = {bom: boolean; crlf: boolean};

/** Bytes -> text, refusing what read would refuse (an edit of garbage produces garbage). */
export function decodeText(resolved: ResolvedPath, bytes: Uint8Array): FsResult<string> {
  if (bytes.includes(0)) {
    return fail('binary', `${resolved.display} looks like a binary file (it contains NUL bytes); nib only edits text.`);
  }
  try {
    return {ok: true, value: new TextDecoder('utf-8', {fatal: true, ignoreBOM: true}).decode(bytes)};
  } catch {
    return fail('not-utf8', `${resolved.display} is not valid UTF-8 text; nib only edits UTF-8 files.`);
  }
}

/**
 * CRLF only when every line break is CRLF: a mixed file is left byte for byte as it is, and a
 * model's LF text still matches its CRLF lines through the trailing-whitespace strategy.
 */
export function detectStyle(raw: string): TextStyle {
  let lineBreaks = 0;
  let crlf = true;
  for (let at = raw.indexOf('\n'); at !== -1; at = raw.indexOf('\n', at + 1)) {
    lineBreaks += 1;
    if (raw[at - 1] !== '\r') {
      crlf = false;
      break;
    }
  }
  return {bom: raw.startsWith(BOM), crlf: crlf && lineBreaks > 0};
}

/** The text a model sees and matches against: no BOM (it never types one), LF line breaks. */
export function toModelText(raw: string, style: TextStyle): string {
  const body = style.bom ? raw.slice(1) : raw;
  return style.crlf ? body.replaceAll('\r\n', '\n') : body;
}

/** Back to the file's own spelling. */
export function toFileText(text: string, style: TextStyle): string {
  const body = style.crlf ? text.replaceAll('\r\n', '\n').replaceAll('\n', '\r\n') : text;
  return style.bom && !body.startsWith(BOM) ? BOM + body : body;
}

/** A size for a sentence the model reads: exact for the round limits, never "0.09765625 KiB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(bytes % 1024 === 0 ? 0 : 1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
}
