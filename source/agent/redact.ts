/**
 * The API key must never leave nib in a message, event or file: every occurrence of a secret is
 * masked. Secrets under 8 characters (a placeholder key like "x" for a local server) are left
 * alone: masking them would garble ordinary words and protect nothing.
 */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 8 && out.includes(secret)) out = out.split(secret).join('[redacted]');
  }
  return out;
}
