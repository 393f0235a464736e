import {render} from 'ink-testing-library';
import {expect, test} from 'vitest';
import {FirstRun} from '../../source/components/FirstRun.js';
import {PROVIDER_NAMES} from '../../source/core/providers.js';
import {plain} from './helpers.js';

test('says how to point nib at each kind of provider, and where the config file goes', () => {
  const frame = plain(render(<FirstRun problem="no model configured" configPath="/home/u/.config/nib/config.json" />).lastFrame());
  for (const text of ['OpenAI', 'OpenRouter', 'Ollama', '--provider', 'OPENAI_API_KEY', 'OPENROUTER_API_KEY', 'OPENAI_BASE_URL', 'NIB_MODEL', 'nib --demo', ...PROVIDER_NAMES]) {
    expect(frame).toContain(text);
  }
  expect(frame).toContain('/home/u/.config/nib/config.json');
});
