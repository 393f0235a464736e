import {parse} from 'yaml';

// Its own module so custom.ts can load it (and yaml) only for a file that has front matter. A
// dynamic import of yaml itself would not do: the bundle exposes a CommonJS package's exports to
// import() only as `default`.
export function parseYaml(text: string): unknown {
  return parse(text);
}
