import {expect, test} from 'vitest';
import {commandCall} from '../../source/core/text.js';

test('a prompt reads as a command only when its first word is a command name', () => {
  expect(commandCall('/review src/a.ts errors')).toEqual({name: 'review', args: 'src/a.ts errors'});
  expect(commandCall('  /help  ')).toEqual({name: 'help', args: ''});
  expect(commandCall('/frontend:component Button')).toEqual({name: 'frontend:component', args: 'Button'});
  expect(commandCall('/review src/a.ts\nand the tests')).toEqual({name: 'review', args: 'src/a.ts\nand the tests'});
  // A path, code, or a slash alone: prompts.
  expect(commandCall('/src/app.ts is broken')).toBeNull();
  expect(commandCall('/** A doc comment */\nexport const x = 1;')).toBeNull();
  expect(commandCall('/* what does /a+/ do */')).toBeNull();
  expect(commandCall('/')).toBeNull();
  expect(commandCall('hello /help')).toBeNull();
});
