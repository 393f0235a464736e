import {join} from 'node:path';
import type {Result} from '../../core/result.js';
import {writeAtomic} from '../../tools/fs/workspace.js';
import {readJsonFile, schemaProblem} from '../config/json-file.js';
import type {Rule, RuleKind, RuleSource} from './rules.js';
import {HOOK_EVENTS, type HookEvent} from './hook-events.js';
import type {HookEntry, Hooks, Permissions, ProjectSettings} from './schema.js';

export type GuardSettings = {
  rules: Rule[];
  /** The person's hooks, and the project's when it is trusted. */
  hooks: Array<{event: HookEvent; entry: HookEntry; source: RuleSource}>;
  /** Whether the project files hold anything that needs trust (allow rules or hooks). */
  projectAsksTrust: boolean;
  /** What trusting would turn on, one line each, for the question: allow rules and hook commands. */
  waitingForTrust: string[];
};

export function projectSettingsPath(root: string, local: boolean): string {
  return join(root, '.nib', local ? 'settings.local.json' : 'settings.json');
}

/**
 * The rules and hooks in force: the person's own, the project's deny and ask rules always, and
 * the project's allow rules and hooks only once the person trusted the workspace (a cloned
 * repository must not be able to let its own commands run, or run its own scripts).
 */
export async function loadGuardSettings(input: {
  root: string;
  user: {permissions?: Permissions; hooks?: Hooks};
  trusted: boolean;
}): Promise<Result<GuardSettings>> {
  const rules: Rule[] = [];
  const hooks: GuardSettings['hooks'] = [];
  const waitingForTrust: string[] = [];
  const add = (settings: ProjectSettings, source: RuleSource) => {
    for (const kind of ['deny', 'ask', 'allow'] as const) {
      for (const text of settings.permissions?.[kind] ?? []) {
        const needsTrust = source !== 'user' && kind === 'allow';
        if (needsTrust) waitingForTrust.push(`allow ${text}`);
        if (!needsTrust || input.trusted) rules.push({kind, text, source});
      }
    }
    for (const event of HOOK_EVENTS) {
      for (const entry of settings.hooks?.[event] ?? []) {
        if (source !== 'user') waitingForTrust.push(...entry.hooks.map(hook => `${event} hook: ${hook.command}`));
        if (source === 'user' || input.trusted) hooks.push({event, entry, source});
      }
    }
  };
  add(input.user, 'user');
  for (const local of [false, true]) {
    const read = await readProjectSettings(projectSettingsPath(input.root, local));
    if (!read.ok) return read;
    add(read.value, local ? 'local' : 'project');
  }
  return {ok: true, value: {rules, hooks, projectAsksTrust: waitingForTrust.length > 0, waitingForTrust}};
}

export async function readProjectSettings(path: string): Promise<Result<ProjectSettings>> {
  const json = await readJsonFile(path);
  if (!json.ok || json.value === undefined) return json.ok ? {ok: true, value: {}} : json;
  // Only a settings file that exists needs zod, so a project without one never loads it.
  const {ProjectSettingsSchema} = await import('./schema.js');
  const parsed = ProjectSettingsSchema.safeParse(json.value);
  return parsed.success ? {ok: true, value: parsed.data} : {ok: false, error: schemaProblem(path, parsed.error)};
}

/** Adds a rule to `.nib/settings.local.json`, keeping everything else in it; written atomically. */
export async function saveLocalRule(root: string, kind: RuleKind, text: string): Promise<Result<void>> {
  return editLocal(root, permissions => {
    const list = permissions[kind] ?? [];
    if (!list.includes(text)) permissions[kind] = [...list, text];
  });
}

/** Removes a rule from `.nib/settings.local.json` (the only project file nib writes). */
export async function removeLocalRule(root: string, kind: RuleKind, text: string): Promise<Result<void>> {
  return editLocal(root, permissions => {
    permissions[kind] = (permissions[kind] ?? []).filter(rule => rule !== text);
  });
}

async function editLocal(root: string, change: (permissions: Permissions) => void): Promise<Result<void>> {
  const path = projectSettingsPath(root, true);
  const read = await readProjectSettings(path);
  if (!read.ok) return read;
  const settings = {...read.value, permissions: {...read.value.permissions}};
  change(settings.permissions);
  return writeJsonAtomic(path, settings);
}

export async function writeJsonAtomic(path: string, value: unknown): Promise<Result<void>> {
  const written = await writeAtomic(path, new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`));
  return written.ok ? {ok: true, value: undefined} : {ok: false, error: written.error.message};
}
