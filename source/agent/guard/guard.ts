import type {AgentEvent} from '../../core/events.js';
import type {Result} from '../../core/result.js';
import type {Tool, ToolResult} from '../../core/tool.js';
import type {HookEvent} from './hook-events.js';
import {runHooks, type HookInput, type HookOutcome} from './hooks.js';
import {looksAtCommands, matchRules, suggestRules, type CallFacts, type Rule, type RuleMatch} from './rules.js';
import type {Sandbox} from './sandbox.js';
import {sandboxPlausiblyCaused} from './sandbox-failure.js';
import {loadGuardSettings, removeLocalRule, saveLocalRule, projectSettingsPath, type GuardSettings} from './settings.js';
import {splitCommand} from './shell.js';
import {keepingTrust, rememberTrust, trustDecision} from './trust.js';

/**
 * The three safety layers for one session: the permission rules in force (the person's, the
 * project's, and those answered "always" in this session), the person's hooks, and the sandbox.
 * Lives with the session; the loop asks it about each call.
 */
export class Guard {
  readonly sandbox: Sandbox | null;
  private rules: Rule[];
  private hooks: GuardSettings['hooks'];
  private readonly root: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly hookBase: () => Pick<HookInput, 'session_id' | 'transcript_path'>;
  private readonly hiddenEnv: readonly string[];
  private readonly redact: (text: string) => string;

  constructor(init: {
    root: string;
    settings: GuardSettings;
    sandbox: Sandbox | null;
    env: NodeJS.ProcessEnv;
    /** The session id and log path hooks receive (they change on /clear and resume). */
    hookBase: () => Pick<HookInput, 'session_id' | 'transcript_path'>;
    /** Variables hooks do not get: the provider key under every name nib knows. */
    hiddenEnv?: readonly string[];
    /** Hook stderr is the person's script talking; it may echo a secret all the same. */
    redact?: (text: string) => string;
  }) {
    this.root = init.root;
    this.rules = [...init.settings.rules];
    this.hooks = init.settings.hooks;
    this.sandbox = init.sandbox;
    this.env = init.env;
    this.hookBase = init.hookBase;
    this.hiddenEnv = init.hiddenEnv ?? [];
    this.redact = init.redact ?? (text => text);
  }

  /** The rules in force, strongest kind first, each with where it was written. */
  listRules(): readonly Rule[] {
    const order = {deny: 0, ask: 1, allow: 2};
    return [...this.rules].sort((a, b) => order[a.kind] - order[b.kind]);
  }

  /** What rules are matched against: the path argument, or the command split into its parts. */
  async facts(tool: Tool, args: unknown): Promise<CallFacts> {
    const record = (args ?? {}) as Record<string, unknown>;
    const facts: CallFacts = {tool: tool.name, root: this.root};
    if (typeof record['path'] === 'string') facts.path = record['path'];
    if (tool.confinable && typeof record['command'] === 'string') {
      // Splitting costs parser time on every call; with no rule to read the parts it waits for "always".
      facts.command = {text: record['command'], ...(looksAtCommands(this.rules) ? {parts: await splitCommand(record['command'])} : {})};
    }
    return facts;
  }

  match(facts: CallFacts): RuleMatch | null {
    return matchRules(this.rules, facts);
  }

  /** The deny rule that forbids a read of any of these paths (a file as written and its real path), or null. */
  readDenied(paths: readonly string[]): string | null {
    for (const path of paths) {
      const match = matchRules(this.rules, {tool: 'read', root: this.root, path});
      if (match?.kind === 'deny') return match.rule.text;
    }
    return null;
  }

  /** The rules "always" would save; splits the command first when facts() did not. */
  async suggest(facts: CallFacts): Promise<string[]> {
    if (facts.command && facts.command.parts === undefined) {
      return suggestRules({...facts, command: {...facts.command, parts: await splitCommand(facts.command.text)}});
    }
    return suggestRules(facts);
  }

  /** "always": keeps allow rules for this session, or saves them to .nib/settings.local.json too. */
  async remember(texts: readonly string[], scope: 'session' | 'project'): Promise<Result<void>> {
    const trusted = scope === 'project' && (await trustDecision(this.env, this.root)) === true;
    for (const text of texts) {
      if (scope === 'project') {
        const saved = await keepingTrust(this.env, this.root, () => saveLocalRule(this.root, 'allow', text));
        if (!saved.ok) return saved;
      }
      if (!this.rules.some(rule => rule.kind === 'allow' && rule.text === text)) {
        this.rules.push({kind: 'allow', text, source: scope === 'project' ? 'local' : 'session'});
      }
    }
    // Saved, but a later session reads settings.local.json's allow rules only in a trusted workspace.
    if (scope === 'project' && !trusted) this.notify('saved to .nib/settings.local.json; it counts in later sessions only once you trust this workspace (/trust)');
    return {ok: true, value: undefined};
  }

  /**
   * `/trust` and `/trust off`: remembers the answer for the project settings as they are now, and
   * applies it to this session at once (the project's allow rules and hooks join or leave).
   */
  async setTrust(trusted: boolean): Promise<Result<string>> {
    const project = await loadGuardSettings({root: this.root, user: {}, trusted});
    if (!project.ok) return project;
    const saved = await rememberTrust(this.env, this.root, trusted);
    if (!saved.ok) return saved;
    const own = (source: string) => source === 'user' || source === 'session';
    this.rules = [...this.rules.filter(rule => own(rule.source)), ...project.value.rules];
    this.hooks = [...this.hooks.filter(hook => hook.source === 'user'), ...project.value.hooks];
    const allows = project.value.rules.filter(rule => rule.kind === 'allow').length;
    return {
      ok: true,
      value: trusted
        ? `trusted this workspace: ${allows} allow rule(s) and ${project.value.hooks.length} hook(s) from .nib/ count now (asked again if they change)`
        : "this workspace is not trusted: .nib/'s allow rules and hooks no longer count (its deny and ask rules still do)",
    };
  }

  /** /mode, /clear and a resume take back "always" answers: the rules kept for this session go too. */
  forgetSession(): void {
    this.rules = this.rules.filter(rule => rule.source !== 'session');
  }

  /**
   * `/permissions` removes a rule: from this session, and from .nib/settings.local.json when it
   * came from there. Rules in the config file or .nib/settings.json are the person's or the
   * team's text, so nib says where to edit them instead.
   */
  async removeRule(rule: Rule): Promise<Result<string>> {
    if (rule.source === 'user' || rule.source === 'project') {
      const where = rule.source === 'project' ? projectSettingsPath(this.root, false) : 'your config file';
      return {ok: false, error: `${rule.kind} rule ${rule.text} is written in ${where}; edit it there`};
    }
    if (rule.source === 'local') {
      const removed = await keepingTrust(this.env, this.root, () => removeLocalRule(this.root, rule.kind, rule.text));
      if (!removed.ok) return removed;
    }
    this.rules = this.rules.filter(kept => !(kept.kind === rule.kind && kept.text === rule.text && kept.source === rule.source));
    return {ok: true, value: `removed ${rule.kind} rule ${rule.text} (${rule.source})`};
  }

  /** Every text a hook produced leaves here redacted: it is shown to the person or sent to the model. */
  async runHooks(input: Omit<HookInput, 'session_id' | 'transcript_path' | 'cwd'>): Promise<HookOutcome> {
    if (!this.hooks.some(hook => hook.event === input.hook_event_name)) return {blocked: null, warnings: []};
    const outcome = await runHooks(this.hooks, {...this.hookBase(), cwd: this.root, ...input}, {env: this.env, hiddenEnv: this.hiddenEnv});
    return {
      blocked: outcome.blocked === null ? null : this.redact(outcome.blocked),
      warnings: outcome.warnings.map(this.redact),
    };
  }

  /** Whether the person set up hooks for any of `events` (their commands may change files). */
  hasHooks(...events: HookEvent[]): boolean {
    return this.hooks.some(hook => events.includes(hook.event));
  }

  preToolUse(tool: string, args: unknown): Promise<HookOutcome> {
    return this.runHooks({hook_event_name: 'PreToolUse', tool_name: tool, tool_input: args});
  }

  postToolUse(tool: string, args: unknown, result: ToolResult): Promise<HookOutcome> {
    return this.runHooks({
      hook_event_name: 'PostToolUse',
      tool_name: tool,
      tool_input: args,
      tool_response: {content: result.content, isError: result.isError, ...(result.detail ? {summary: result.detail.summary} : {})},
    });
  }

  /** SessionStart: `source` is startup, resume or clear, as in Claude Code. */
  sessionStart(source: 'startup' | 'resume' | 'clear'): Promise<HookOutcome> {
    return this.runHooks({hook_event_name: 'SessionStart', source});
  }

  /** UserPromptSubmit: a block (exit 2) means the prompt is not sent. */
  promptSubmitted(prompt: string): Promise<HookOutcome> {
    return this.runHooks({hook_event_name: 'UserPromptSubmit', prompt});
  }

  /** UserPromptSubmit as the events a session reports; `blocked` (exit 2): the prompt is not sent. */
  async promptEvents(prompt: string): Promise<{events: AgentEvent[]; blocked: boolean}> {
    const outcome = await this.promptSubmitted(prompt);
    const events = warningEvents(outcome);
    if (outcome.blocked !== null) {
      events.push({type: 'error', code: 'hook', message: `A UserPromptSubmit hook blocked the prompt; it was not sent: ${outcome.blocked}`});
    }
    return {events, blocked: outcome.blocked !== null};
  }

  /** Stop: the turn ended; nib reports what the hooks say but does not restart the turn. */
  async stopEvents(): Promise<AgentEvent[]> {
    return warningEvents(await this.runHooks({hook_event_name: 'Stop', stop_hook_active: false}));
  }

  async close(): Promise<void> {
    await this.sandbox?.close();
  }

  /** Where the sandbox's "unavailable" line goes: the session's notices. */
  notify: (text: string) => void = () => {};
  private unavailableSaid = false;

  /**
   * The sandbox's wrapper for a command, or null when commands run unsandboxed (off, or bwrap
   * does not work here: said once, when the first command needs it).
   */
  async confinement(): Promise<((argv: readonly string[]) => string[]) | null> {
    if (!this.sandbox) return null;
    const problem = await this.sandbox.ready();
    if (problem === null) return this.sandbox.wrap;
    if (!this.unavailableSaid) this.notify(problem);
    this.unavailableSaid = true;
    return null;
  }

  /** A failed sandboxed run the sandbox may have caused: worth offering to run it outside. */
  blamesSandbox(result: ToolResult): boolean {
    return this.sandbox !== null && result.isError && sandboxPlausiblyCaused(result.content, {root: this.root, network: this.sandbox.network});
  }
}

function warningEvents(outcome: HookOutcome): AgentEvent[] {
  return outcome.warnings.map(message => ({type: 'error', code: 'hook', message}));
}
