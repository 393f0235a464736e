import {isAbsolute, relative} from 'node:path';

const NETWORK_ERRORS = [
  /Could not resolve host/i,
  /Temporary failure in name resolution/i,
  /Name or service not known/i,
  /Network is unreachable/i,
  /getaddrinfo (EAI_AGAIN|ENOTFOUND)/,
  /\bENETUNREACH\b/,
  /\bEAI_AGAIN\b/,
];

/**
 * Whether a failed sandboxed command plausibly failed because of the sandbox: a read-only or
 * permission error on a path outside the workspace, or a network error while the network is
 * off. A guess from the output, so it only ever leads to an offer the person answers.
 */
export function sandboxPlausiblyCaused(output: string, facts: {root: string; network: boolean}): boolean {
  if (!facts.network && NETWORK_ERRORS.some(pattern => pattern.test(output))) return true;
  for (const line of output.split('\n')) {
    if (!/Read-only file system|EROFS|Permission denied|EACCES|Operation not permitted/.test(line)) continue;
    const paths = line.match(/\/[^\s:'"`()]+/g) ?? [];
    // No path in the line: the error is about something the sandbox may well have caused.
    if (paths.length === 0 || paths.some(path => outside(facts.root, path))) return true;
  }
  return false;
}

function outside(root: string, path: string): boolean {
  const inside = relative(root, path);
  return inside.startsWith('..') || isAbsolute(inside);
}
