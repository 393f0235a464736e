import type {Rule} from '../agent/guard/rules.js';
import {note, type CommandContext, type SlashCommand} from './context.js';

const SOURCES: Record<Rule['source'], string> = {
  user: 'your config file',
  project: '.nib/settings.json',
  local: '.nib/settings.local.json',
  session: 'this session',
};

/** The permission rules in force and where each was written; removes one by its number. */
export const permissionCommands: readonly SlashCommand[] = [
  {name: 'permissions', args: '[remove N]', description: 'the permission rules in force and where each comes from; remove one', run: permissions},
  {name: 'trust', args: '[off]', description: "trust this workspace: .nib/'s allow rules and hooks count (off: they stop)", run: trust},
];

async function trust(arg: string, context: CommandContext): Promise<void> {
  const guard = context.session.guard;
  if (!guard) return note(context, 'project trust is not available in this run');
  if (arg !== '' && arg !== 'off') return note(context, 'usage: /trust (trust this workspace), or /trust off');
  const changed = await guard.setTrust(arg === '');
  note(context, changed.ok ? changed.value : `trust not changed: ${changed.error}`);
}

async function permissions(arg: string, context: CommandContext): Promise<void> {
  const guard = context.session.guard;
  if (!guard) return note(context, 'permission rules are not available in this run');
  const rules = guard.listRules();
  const remove = /^remove\s+(\d+)$/.exec(arg);
  if (arg && !remove) return note(context, 'usage: /permissions, or /permissions remove N (N from the list)');
  if (remove) {
    const rule = rules[Number(remove[1]) - 1];
    if (!rule) return note(context, `there is no rule ${remove[1]}: /permissions lists ${rules.length}`);
    const removed = await guard.removeRule(rule);
    return note(context, removed.ok ? removed.value : `not removed: ${removed.error}`);
  }
  if (rules.length === 0) return note(context, 'no permission rules: every call follows the approval mode');
  const width = String(rules.length).length;
  const lines = rules.map((rule, i) => `${String(i + 1).padStart(width)}. ${rule.kind.padEnd(5)} ${rule.text}  (${SOURCES[rule.source]})`);
  note(context, [...lines, '', 'deny beats ask beats allow; /permissions remove N removes one'].join('\n'));
}
