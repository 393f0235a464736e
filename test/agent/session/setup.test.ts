import {expect, test} from 'vitest';
import {resolveConfig} from '../../../source/agent/config/config.js';
import {parseFlags} from '../../../source/agent/config/flags.js';
import {setupAgent} from '../../../source/agent/session/setup.js';

test('tool output is masked for the API key and for every *_KEY/*_TOKEN/*_SECRET value, as the session log is', async () => {
  const flags = parseFlags(['-p', 'go', '--model', 'm', '--base-url', 'http://127.0.0.1:9/v1']);
  if (!flags.ok) throw new Error(flags.error);
  const config = await resolveConfig({
    flags: flags.value,
    env: {XDG_CONFIG_HOME: '/nonexistent-nib-config', OPENAI_API_KEY: 'sk-setup-test-123456'},
    cwd: process.cwd(),
  });
  if (!config.ok) throw new Error(config.error);
  const setup = await setupAgent(config.value, {env: {GITHUB_TOKEN: 'ghp_setup_987654', HOME: '/home/x'}});
  if (!setup.ok) throw new Error(setup.error);
  const masked = setup.value.context.redact!('env: sk-setup-test-123456 ghp_setup_987654 /home/x');
  expect(masked).not.toContain('sk-setup-test-123456');
  expect(masked).not.toContain('ghp_setup_987654');
  expect(masked).toContain('/home/x');
});
