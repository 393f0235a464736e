import {createHash} from 'node:crypto';
import {readFile} from 'node:fs/promises';
import {join} from 'node:path';
import type {Result} from '../../core/result.js';
import {nibDir} from '../config/xdg.js';
import {projectSettingsPath, readProjectSettings, writeJsonAtomic} from './settings.js';

/**
 * The person's trust answer per workspace (real path), in the state dir, tied to what they
 * trusted: `{"<root>": {"trusted": true, "fingerprint": "…"}}`. The fingerprint covers the
 * project's allow rules and hooks, so a `git pull`, or a model that got a write into `.nib/`
 * approved, cannot swap new commands in under the old answer: when it changes, the workspace is
 * untrusted again and the question comes back.
 */
function trustFile(env: NodeJS.ProcessEnv): string {
  return join(nibDir(env, 'XDG_STATE_HOME'), 'trusted-workspaces.json');
}

/** A hash of what trust turns on in this workspace (allow rules and hooks of both project files); null when a file cannot be read. */
export async function trustFingerprint(root: string): Promise<string | null> {
  const parts = [];
  for (const local of [false, true]) {
    const read = await readProjectSettings(projectSettingsPath(root, local));
    if (!read.ok) return null;
    parts.push({allow: read.value.permissions?.allow ?? [], hooks: read.value.hooks ?? {}});
  }
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

/**
 * Whether the person trusted the workspace as its settings are now (true), declined it (false),
 * or was never asked, or answered for other settings (undefined: ask again).
 */
export async function trustDecision(env: NodeJS.ProcessEnv, root: string): Promise<boolean | undefined> {
  const record = (await readTrust(env))[root];
  // A bare `false` is a "no" from before fingerprints; a bare `true` is not tied to any content, so it asks again.
  if (record === false) return false;
  if (!record || typeof record !== 'object') return undefined;
  const {trusted, fingerprint} = record as {trusted?: unknown; fingerprint?: unknown};
  if (typeof trusted !== 'boolean' || typeof fingerprint !== 'string') return undefined;
  return fingerprint === (await trustFingerprint(root)) ? trusted : undefined;
}

/** Remembers the answer for the workspace's settings as they are now. */
export async function rememberTrust(env: NodeJS.ProcessEnv, root: string, trusted: boolean): Promise<Result<void>> {
  const fingerprint = await trustFingerprint(root);
  if (fingerprint === null) return {ok: false, error: `the settings in ${join(root, '.nib')} cannot be read, so the answer was not remembered`};
  return writeJsonAtomic(trustFile(env), {...(await readTrust(env)), [root]: {trusted, fingerprint}});
}

/**
 * A change nib itself makes to `.nib/settings.local.json` (the person's "always → this project",
 * or `/permissions remove`) keeps a trusted workspace trusted: only changes made behind the
 * person's back ask again.
 */
export async function keepingTrust(env: NodeJS.ProcessEnv, root: string, change: () => Promise<Result<void>>): Promise<Result<void>> {
  const wasTrusted = (await trustDecision(env, root)) === true;
  const changed = await change();
  if (!changed.ok || !wasTrusted) return changed;
  return rememberTrust(env, root, true);
}

async function readTrust(env: NodeJS.ProcessEnv): Promise<Record<string, unknown>> {
  try {
    const json: unknown = JSON.parse(await readFile(trustFile(env), 'utf8'));
    return json && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
  } catch {
    // Missing or damaged: no decision, which only means the question is asked again.
    return {};
  }
}
