/**
 * What the demo model says, decided from the conversation so far, so the demo follows the person:
 * approve the edit and it runs the test; deny it and it stops and says so.
 */

/** One scripted reply: text streamed word by word, then at most one tool call. */
export type DemoReply = {
  text: string;
  reasoning?: string;
  toolCall?: {name: string; arguments: Record<string, unknown>};
};

type WireMessage = {role: string; content?: string | null};

const intro = [
  "I'll start by reading the code the test exercises.",
  '',
  'Plan:',
  '1. **Read** `src/greet.js`',
  '2. **Fix** what the test expects',
  '3. **Run** the test to check',
].join('\n');

const fixed = [
  '## Fixed',
  '',
  '`greet()` now ends its greeting with the `!` the test expects:',
  '',
  '```js',
  'export function greet(name) {',
  '  return `Hello, ${name}!`;',
  '}',
  '```',
  '',
  '| step | result |',
  '|------|--------|',
  '| read `src/greet.js` | found the missing `!` |',
  '| edit `src/greet.js` | +1 −1 |',
  '| `node test.js` | passes |',
  '',
  'That was the whole demo. Point nib at a real model to use it for your own work: `nib --help`.',
].join('\n');

/** The reply to a request, from the messages it carries. */
export function nextReply(messages: readonly WireMessage[]): DemoReply {
  const lastUser = messages.map(message => message.role).lastIndexOf('user');
  const results = messages.slice(lastUser + 1).filter(message => message.role === 'tool');
  const last = results.at(-1)?.content ?? '';
  if (lastUser > 1) {
    return {
      text: 'This demo model only knows one script. To work on your own code, point nib at a real model (OpenAI, OpenRouter, Ollama, LM Studio): see `nib --help`.',
    };
  }
  switch (results.length) {
    case 0:
      return {
        reasoning: 'The test compares greet("Ada") with a string. Read the function first.',
        text: intro,
        toolCall: {name: 'read', arguments: {path: 'src/greet.js'}},
      };
    case 1:
      return {
        text: 'The test expects `Hello, Ada!` but `greet()` leaves out the `!`. Here is the fix:',
        toolCall: {
          name: 'edit',
          arguments: {path: 'src/greet.js', old_string: "  return 'Hello, ' + name;", new_string: '  return `Hello, ${name}!`;'},
        },
      };
    case 2:
      if (/declined|not run|interrupted/i.test(last)) {
        return {text: 'Understood: I left `src/greet.js` as it was. The test will keep failing until it ends with `!`.'};
      }
      return {text: 'Now the test:', toolCall: {name: 'bash', arguments: {command: 'node test.js'}}};
    default:
      return {text: /declined|not run/i.test(last) ? 'Fine, I did not run the test. The fix is in place.' : fixed};
  }
}
