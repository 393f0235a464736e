import {homedir} from 'node:os';
import {join} from 'node:path';

const fallbacks = {
  XDG_CONFIG_HOME: ['.config'],
  XDG_DATA_HOME: ['.local', 'share'],
  XDG_STATE_HOME: ['.local', 'state'],
} as const;

/**
 * nib's folder under one XDG base directory. The spec says a relative value is invalid and must be
 * ignored; HOME comes from `env` first so tests and sandboxes never touch the real home.
 */
export function nibDir(env: NodeJS.ProcessEnv, base: keyof typeof fallbacks): string {
  const value = env[base];
  return join(value?.startsWith('/') ? value : join(env['HOME'] || homedir(), ...fallbacks[base]), 'nib');
}
