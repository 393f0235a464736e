/**
 * The sample project the demo works on, copied to a scratch directory for each run. Kept as data
 * so the single bundled cli.js carries it. The test fails until greet() adds its "!".
 */
export const sampleProject: Readonly<Record<string, string>> = {
  'package.json': `${JSON.stringify({name: 'greeter', version: '1.0.0', type: 'module', scripts: {test: 'node test.js'}}, null, 2)}\n`,
  'README.md': '# greeter\n\nSays hello. `npm test` checks it.\n',
  'src/greet.js': ['/** Greets someone by name. */', 'export function greet(name) {', "  return 'Hello, ' + name;", '}', ''].join('\n'),
  'test.js': [
    "import assert from 'node:assert/strict';",
    "import {greet} from './src/greet.js';",
    '',
    "assert.equal(greet('Ada'), 'Hello, Ada!');",
    "console.log('ok: greet says hello with an exclamation mark');",
    '',
  ].join('\n'),
};

/** What the demo types for the person, so the whole flow runs with one key press per approval. */
export const demoPrompt = 'The test in this project fails. Find out why and fix it.';
