// The parser ships no types; nib reads only `type` and a few fields of its nodes (shell.ts).
declare module '@ericcornelissen/bash-parser' {
  export type BashNode = {type: string; text?: string; [field: string]: unknown};
  export default function parse(source: string, options?: {mode?: 'bash' | 'posix'}): BashNode;
}
