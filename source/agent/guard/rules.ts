import {isAbsolute, relative, resolve} from 'node:path';
import picomatch from 'picomatch';
import type {CommandPart} from './shell.js';

export const RULE_KINDS = ['deny', 'ask', 'allow'] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

/** Where a rule was written: it decides whether it counts (project allow rules need trust). */
export type RuleSource = 'user' | 'project' | 'local' | 'session';

export type Rule = {kind: RuleKind; text: string; source: RuleSource};

/** A rule's text taken apart: `bash(git diff:*)` is tool "bash", specifier "git diff:*". */
type Pattern = {tool: string; specifier: string | null};

/** What a rule is matched against: the call, with its shell command already split. */
export type CallFacts = {
  tool: string;
  /** The call's path argument, when it has one (read, write, edit, grep, list). */
  path?: string;
  /**
   * bash: the command as sent, and its parts (null when it did not parse; undefined when it was
   * not split because no rule looks at commands, and then judged as if it did not parse).
   */
  command?: {text: string; parts?: CommandPart[] | null};
  root: string;
};

export type RuleMatch = {kind: RuleKind; rule: Rule};

/** Tools a path rule reaches: `edit(...)` covers every tool that changes files, `read(...)` every one that looks. */
const PATH_RULE_TOOLS: Record<string, readonly string[]> = {
  read: ['read', 'grep', 'list'],
  edit: ['edit', 'write'],
  write: ['write'],
};

/** null when `text` is a valid rule; otherwise what is wrong with it, for the settings error. */
export function ruleProblem(text: string): string | null {
  const pattern = parsePattern(text);
  if (!pattern) return `"${text}" is not a rule: write a tool name, optionally with (what it applies to), like bash(npm test) or edit(src/**)`;
  if (pattern.specifier === '') return `"${text}": the parentheses are empty; drop them to cover every call of ${pattern.tool}`;
  return null;
}

/** Whether any rule names a command (`bash(...)`): only then is a command worth splitting. */
export function looksAtCommands(rules: readonly Rule[]): boolean {
  return rules.some(rule => {
    const pattern = parsePattern(rule.text);
    return pattern?.tool === 'bash' && pattern.specifier !== null;
  });
}

function parsePattern(text: string): Pattern | null {
  const match = /^\s*([A-Za-z][\w-]*)\s*(?:\(([\s\S]*)\))?\s*$/.exec(text);
  if (!match) return null;
  const name = match[1]!;
  // nib's own tool names ignore case (`Bash`); an MCP server's name is the person's, as its tools
  // are named, so `mcp__GitHub` must still reach `mcp__GitHub__create_issue`.
  const tool = /^mcp__/i.test(name) ? `mcp__${name.slice(5)}` : name.toLowerCase();
  return {tool, specifier: match[2] === undefined ? null : match[2].trim()};
}

/**
 * The strongest rule that applies to a call: deny, then ask, then allow. A shell command is
 * allowed only when every part of it is; one denied or asked part decides for the whole.
 * Pure: the rules in force and the split command are passed in.
 */
export function matchRules(rules: readonly Rule[], call: CallFacts): RuleMatch | null {
  for (const kind of RULE_KINDS) {
    for (const rule of rules) {
      if (rule.kind !== kind) continue;
      const pattern = parsePattern(rule.text);
      if (pattern && applies(pattern, call, kind)) return {kind, rule};
    }
  }
  if (call.command?.parts && call.command.parts.length > 0) {
    const allows = rules.filter(rule => rule.kind === 'allow');
    const uncovered = call.command.parts.find(part => !allows.some(rule => coversPart(rule, part)));
    if (!uncovered) return {kind: 'allow', rule: allows.find(rule => coversPart(rule, call.command!.parts![0]!))!};
  }
  return null;
}

/** Whether one rule applies to the call as a whole (for allow: without looking at shell parts). */
function applies(pattern: Pattern, call: CallFacts, kind: RuleKind): boolean {
  // A server name never holds `__` (refused in its config), so the first `__` after the prefix
  // ends it: `mcp__a` names a server, `mcp__a__b` one of its tools.
  if (pattern.tool.startsWith('mcp__')) {
    return call.tool === pattern.tool || (!pattern.tool.slice(5).includes('__') && call.tool.startsWith(`${pattern.tool}__`));
  }
  const tools = pattern.specifier !== null ? (PATH_RULE_TOOLS[pattern.tool] ?? [pattern.tool]) : [pattern.tool];
  if (!tools.includes(call.tool)) return false;
  if (pattern.specifier === null) return true;
  if (call.command) {
    if (kind === 'allow') return false;
    const parts = call.command.parts;
    if (parts) return parts.some(part => commandMatches(pattern.specifier!, part.text));
    // A line nib cannot split may run its commands anywhere in it (`ls ${x:-$(rm f)}`): deny and
    // ask hold when the rule's words appear in a row anywhere in the line.
    return containsWords(looseWords(call.command.text), looseWords(pattern.specifier.replace(/:\*$/, '')));
  }
  if (call.path === undefined) return false;
  return pathMatches(pattern.specifier, call.path, call.root, kind);
}

function coversPart(rule: Rule, part: CommandPart): boolean {
  const pattern = parsePattern(rule.text);
  if (!pattern || pattern.tool !== 'bash') return false;
  // A redirect to a file is a write the rule's author did not write down.
  if (part.writesFile) return false;
  return pattern.specifier === null || commandMatches(pattern.specifier, part.text);
}

/** `npm test` is exact; `git diff:*` is the command and anything after it, at a word boundary. */
function commandMatches(specifier: string, text: string): boolean {
  if (specifier.endsWith(':*')) {
    const prefix = specifier.slice(0, -2).trim();
    return text === prefix || text.startsWith(`${prefix} `);
  }
  return text === specifier;
}

/** The words of a line nib could not parse, quotes and escapes dropped and split at anything that is not part of a word. */
function looseWords(text: string): string[] {
  return text.replace(/['"\\]/g, '').split(/[^\w./@%+,=~:-]+/).filter(word => word !== '');
}

function containsWords(words: readonly string[], wanted: readonly string[]): boolean {
  if (wanted.length === 0) return false;
  return words.some((_, start) => wanted.every((word, offset) => words[start + offset] === word));
}

function pathMatches(glob: string, path: string, root: string, kind: RuleKind): boolean {
  const absolute = resolve(root, path);
  const inside = relative(root, absolute);
  const outside = inside.startsWith('..') || isAbsolute(inside);
  const test = picomatch(glob, {dot: true});
  if (!outside) return test(inside === '' ? '.' : inside);
  // A path outside the workspace matches only an absolute glob, except for deny, which errs
  // towards matching (`read(**/.env)` also keeps /elsewhere/.env out).
  return isAbsolute(glob) ? test(absolute) : kind === 'deny' && picomatch(`/**/${glob}`, {dot: true})(absolute);
}

/**
 * The rules "always" would save for a call, shown to the person before saving: each part of a
 * command exactly as it ran, or the tool name for other tools (what "always" meant before).
 */
export function suggestRules(call: CallFacts): string[] {
  if (!call.command) return [call.tool];
  const parts = call.command.parts;
  if (!parts || parts.length === 0 || parts.some(part => part.writesFile || part.text === '' || part.text.includes(')'))) return [];
  return [...new Set(parts.map(part => `bash(${part.text})`))];
}
