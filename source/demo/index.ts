import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import type {Config} from '../agent/config/config.js';
import {demoPrompt, sampleProject} from './project.js';
import {startDemoServer} from './server.js';

/** Copies the sample project into a fresh scratch directory and returns its path. */
export async function createDemoProject(parent = tmpdir()): Promise<string> {
  const root = await mkdtemp(join(parent, 'nib-demo-'));
  for (const [path, text] of Object.entries(sampleProject)) {
    await mkdir(dirname(join(root, path)), {recursive: true});
    await writeFile(join(root, path), text);
  }
  return root;
}

/**
 * `nib --demo`: the real session against the bundled scripted server and a scratch copy of the
 * sample project. Both are gone when the session ends.
 */
export async function runDemo(config: Config): Promise<number> {
  const [server, root] = await Promise.all([startDemoServer(), createDemoProject()]);
  try {
    const {runInteractive} = await import('../interactive.js');
    return await runInteractive({
      ...config,
      model: 'nib-demo',
      baseURL: server.url,
      apiKey: undefined,
      cwd: root,
      prompt: config.prompt ?? demoPrompt,
    });
  } finally {
    await server.close();
    await rm(root, {recursive: true, force: true});
  }
}
