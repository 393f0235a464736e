/**
 * What one kind of local or hosted server answers besides chat completions: its model list and
 * metadata routes, and its refusal of a request longer than its window, byte for byte as the
 * real servers send them (llama.cpp's recorded in ../shared/tools/real-llm/README.md).
 *
 *   startOpenAiServer(script, {persona: {kind: 'llama.cpp', window: 4096}})
 *
 * A persona with a window measures every chat request (countTokens) and refuses one over the
 * window the way that server does; `ollama` answers it anyway, as Ollama does (it cuts the start
 * of the prompt silently), and the request is recorded with `overWindow: true`.
 */
import type {RecordedBody} from './openai-server.js';

export type PersonaKind = 'llama.cpp' | 'vllm' | 'lmstudio' | 'ollama' | 'openrouter' | 'openai';

export type Persona = {
  kind: PersonaKind;
  /** Tokens the server holds; undefined: no window, nothing refused. */
  window?: number;
  /** Model ids served (default one: "nib-test-model"). */
  models?: string[];
  /** Ollama: the model is not loaded yet (/api/ps lists nothing; /api/show has `num_ctx`?). */
  loaded?: boolean;
  /** Ollama: `num_ctx` in the model's Modelfile parameters. */
  numCtx?: number;
  /** LM Studio / Ollama: what the model was trained for. */
  maxWindow?: number;
  /** Characters per token of the server's count (3.5 by default); fewer for a text its tokenizer splits finely. */
  charsPerToken?: number;
};

export type Reply = {status: number; body: string};

/**
 * The server's own count of a request: a stricter one than nib's four characters a token
 * (3.5, plus a framing cost per message), so a fit check that trusts its own estimate too much
 * fails here the way it would on a real tokenizer.
 */
export function countTokens(body: RecordedBody, charsPerToken = 3.5): number {
  let chars = 0;
  for (const message of body.messages) {
    chars += typeof message.content === 'string' ? message.content.length : JSON.stringify(message.content ?? '').length;
    if (Array.isArray(message.tool_calls)) chars += JSON.stringify(message.tool_calls).length;
  }
  if (body.tools) chars += JSON.stringify(body.tools).length;
  return Math.ceil(chars / charsPerToken) + 6 * body.messages.length;
}

/** The answer to a metadata route, or null when this server has no such route (then a 404). */
export function metadata(persona: Persona, method: string, path: string): Reply | null {
  const models = persona.models ?? ['nib-test-model'];
  const window = persona.window ?? 0;
  const json = (value: unknown): Reply => ({status: 200, body: JSON.stringify(value)});
  const created = 1_764_000_000;
  switch (persona.kind) {
    case 'llama.cpp':
      // Recorded from llama-server b1-de3ff81 (../shared/tools/real-llm), only the model and n_ctx varied.
      if (method === 'GET' && path === '/v1/models') {
        return json({
          models: models.map(name => ({name, model: name, modified_at: '', size: '', digest: '', type: 'model', description: '', tags: [''], capabilities: ['completion'], parameters: '', details: {parent_model: '', format: 'gguf', family: '', families: [''], parameter_size: '', quantization_level: ''}})),
          object: 'list',
          data: models.map(id => ({id, aliases: [id], tags: [], object: 'model', created, owned_by: 'llamacpp', meta: {vocab_type: 2, n_vocab: 151936, n_ctx: window, n_ctx_train: 32768, n_embd: 640, n_params: 282991488, size: 231521792, ftype: 'Q4_K - Medium'}})),
        });
      }
      if (method === 'GET' && path === '/props') {
        return json({default_generation_settings: {params: {seed: 4294967295, temperature: 0.800000011920929, top_k: 40, top_p: 0.949999988079071, max_tokens: -1, n_predict: -1, n_keep: 0, stream: false, chat_format: 'Content-only', lora: []}, n_ctx: window}, total_slots: 1, model_alias: models[0], model_ftype: 'Q4_K - Medium', model_path: `/models/${models[0]}.gguf`, modalities: {vision: false, audio: false}, build_info: 'b1-de3ff81', is_sleeping: false});
      }
      return null;
    case 'vllm':
      if (method === 'GET' && path === '/v1/models') {
        return json({object: 'list', data: models.map(id => ({id, object: 'model', created, owned_by: 'vllm', root: id, parent: null, max_model_len: window, permission: [{id: 'modelperm-0', object: 'model_permission', created, allow_create_engine: false, allow_sampling: true, allow_logprobs: true, allow_search_indices: false, allow_view: true, allow_fine_tuning: false, organization: '*', group: null, is_blocking: false}]}))});
      }
      return null;
    case 'lmstudio':
      if (method === 'GET' && path === '/v1/models') return json({data: models.map(id => ({id, object: 'model', owned_by: 'organization_owner'})), object: 'list'});
      if (method === 'GET' && path === '/api/v0/models') {
        return json({object: 'list', data: models.map(id => ({id, object: 'model', type: 'llm', publisher: 'lmstudio-community', arch: 'qwen2', compatibility_type: 'gguf', quantization: 'Q4_K_M', state: persona.loaded === false ? 'not-loaded' : 'loaded', max_context_length: persona.maxWindow ?? 32768, ...(persona.loaded === false ? {} : {loaded_context_length: window})}))});
      }
      return null;
    case 'ollama':
      if (method === 'GET' && path === '/v1/models') return json({object: 'list', data: models.map(id => ({id, object: 'model', created, owned_by: 'library'}))});
      if (method === 'GET' && path === '/api/ps') {
        return json({models: persona.loaded === false ? [] : models.slice(0, 1).map(name => ({name, model: name, size: 3_338_801_804, digest: 'a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72', details: {parent_model: '', format: 'gguf', family: 'llama', families: ['llama'], parameter_size: '3.2B', quantization_level: 'Q4_K_M'}, expires_at: '2026-11-25T02:10:00.000000000Z', size_vram: 3_338_801_804, context_length: window}))});
      }
      if (method === 'POST' && path === '/api/show') {
        return json({license: '', modelfile: '', parameters: persona.numCtx ? `num_ctx                        ${persona.numCtx}\nstop                           "<|eot_id|>"` : 'stop                           "<|eot_id|>"', template: '', details: {format: 'gguf', family: 'llama'}, model_info: {'general.architecture': 'llama', 'llama.context_length': persona.maxWindow ?? 131072}, capabilities: ['completion', 'tools'], modified_at: '2026-11-20T10:00:00Z'});
      }
      return null;
    case 'openrouter':
      if (method === 'GET' && path === '/v1/models') {
        return json({data: models.map(id => ({id, canonical_slug: id, name: id, created, description: '', context_length: window, architecture: {modality: 'text->text', input_modalities: ['text'], output_modalities: ['text'], tokenizer: 'Other', instruct_type: null}, pricing: {prompt: '0', completion: '0'}, top_provider: {context_length: window, max_completion_tokens: null, is_moderated: false}, per_request_limits: null, supported_parameters: ['tools']}))});
      }
      return null;
    case 'openai':
      if (method === 'GET' && path === '/v1/models') return json({object: 'list', data: models.map(id => ({id, object: 'model', created, owned_by: 'system'}))});
      return null;
  }
}

/** The server's refusal of a request of `tokens` over its window, or null when it answers anyway. */
export function refusal(persona: Persona, tokens: number): Reply | null {
  const window = persona.window ?? 0;
  const body = (value: unknown): Reply => ({status: 400, body: JSON.stringify(value)});
  switch (persona.kind) {
    case 'llama.cpp':
      return body({error: {code: 400, message: `request (${tokens} tokens) exceeds the available context size (${window} tokens), try increasing it`, type: 'exceed_context_size_error', n_prompt_tokens: tokens, n_ctx: window}});
    case 'vllm':
      return body({object: 'error', message: `This model's maximum context length is ${window} tokens. However, your request has ${tokens} input tokens. Please reduce the length of the input messages. None`, type: 'BadRequestError', param: null, code: 400});
    case 'openai':
    case 'openrouter':
      return body({error: {message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`, type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded'}});
    case 'lmstudio':
      return body({error: `The number of tokens to keep from the initial prompt is greater than the context length. Try to load the model with a larger context length, or provide a shorter input`});
    case 'ollama':
      return null;
  }
}
