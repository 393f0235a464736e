// The floor for bench/stream.mjs, tui.mjs (parts 2 and 3) and startup.mjs: the raw openai SDK
// streaming one answer to stdout, nothing else.
// Usage: node bench/raw-sdk.mjs BASE_URL
import OpenAI from 'openai';

const client = new OpenAI({baseURL: process.argv[2], apiKey: 'bench', maxRetries: 0});
const stream = await client.chat.completions.create({
  model: 'bench-model',
  messages: [{role: 'user', content: 'write a long answer'}],
  stream: true,
  stream_options: {include_usage: true},
});
for await (const chunk of stream) {
  const text = chunk.choices[0]?.delta?.content;
  if (text) process.stdout.write(text);
}
