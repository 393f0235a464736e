/**
 * The API key, any value of an env var whose name ends in _KEY, _TOKEN or _SECRET, and the
 * credentials of a URL must never leave nib in a message, event or file: every occurrence is
 * masked. This is the one place that knows how.
 */

export type Redactor = (text: string) => string;

/**
 * Values shorter than this are not treated as secrets: masking a placeholder key like "x" for a
 * local server would garble ordinary words and protect nothing.
 */
const MIN_SECRET_LENGTH = 6;

/**
 * A user name and password written into a URL (`https://me:pw@proxy/v1`, a base URL for a proxy
 * with basic auth) are masked wherever a URL is quoted, whatever their length.
 */
export function redactUrlCredentials(text: string): string {
  // Up to the last @ before the host (a password may hold @ or '); the scheme is bounded, so a
  // long run of word characters is not scanned again from each of its boundaries.
  return text.includes('@') ? text.replace(/\b([a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/?#"<>\\]*@/gi, '$1[redacted]@') : text;
}

/** Masks every occurrence of each secret with `[redacted]`, and a URL's user name and password. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = redactUrlCredentials(text);
  for (const secret of secrets) {
    if (secret && secret.length >= MIN_SECRET_LENGTH && out.includes(secret)) out = out.split(secret).join('[redacted]');
  }
  return out;
}

/**
 * Built once at start from the environment: the API key, and every variable whose name ends in
 * _KEY, _TOKEN or _SECRET, masked as `[redacted:NAME]`. Both the raw value and its JSON-escaped
 * form are replaced, so it can be applied to a JSONL line.
 */
export function createRedactor(env: NodeJS.ProcessEnv, extra: ReadonlyArray<{name: string; value: string | undefined}> = []): Redactor {
  const secrets = new Map<string, string>();
  const add = (name: string, value: string | undefined) => {
    if (!value || value.length < MIN_SECRET_LENGTH) return;
    secrets.set(value, name);
    const escaped = JSON.stringify(value).slice(1, -1);
    if (escaped !== value) secrets.set(escaped, name);
  };
  for (const [name, value] of Object.entries(env)) if (/_(KEY|TOKEN|SECRET)$/i.test(name)) add(name, value);
  for (const {name, value} of extra) add(name, value);
  // Longest first, so a secret that contains another is replaced whole.
  const pairs = [...secrets].sort((a, b) => b[0].length - a[0].length);
  if (pairs.length === 0) return redactUrlCredentials;
  return text => {
    let out = redactUrlCredentials(text);
    for (const [value, name] of pairs) if (out.includes(value)) out = out.split(value).join(`[redacted:${name}]`);
    return out;
  };
}
