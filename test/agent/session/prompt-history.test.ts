import {mkdtemp, readFile, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {createPromptHistory} from '../../../source/agent/session/prompt-history.js';
import {createRedactor} from '../../../source/agent/config/redact.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nib-history-'));
});
afterEach(async () => {
  await rm(dir, {recursive: true, force: true});
});

test('a secret pasted into a prompt is masked in the history file; other text is kept', async () => {
  const path = join(dir, 'state', 'history');
  const store = createPromptHistory(path, createRedactor({GITHUB_TOKEN: 'ghp_abcdef123456'}, [{name: 'apiKey', value: 'sk-test-987654321'}]));
  await store.append('use ghp_abcdef123456 and sk-test-987654321\nthen push');
  const text = await readFile(path, 'utf8');
  expect(text).not.toContain('ghp_abcdef123456');
  expect(text).not.toContain('sk-test-987654321');
  const [entry] = await store.load();
  expect(entry).toContain('then push');
  expect(entry).toContain('[redacted');
});
