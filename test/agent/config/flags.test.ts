import {describe, expect, it} from 'vitest';
import {nodeVersionProblem} from '../../../source/agent/config/flags.js';

describe('nodeVersionProblem', () => {
  it('accepts Node 22 and later', () => {
    expect(nodeVersionProblem('v22.0.0')).toBeUndefined();
    expect(nodeVersionProblem('v24.21.0')).toBeUndefined();
    expect(nodeVersionProblem('v26.1.0')).toBeUndefined();
  });

  it('names the running version and the way out for older Node', () => {
    const message = nodeVersionProblem('v20.20.2');
    expect(message).toContain('v20.20.2');
    expect(message).toContain('Node.js 22 or newer');
    expect(message).toContain('npm start');
  });
});

describe('nodeVersionProblem under npm start', () => {
  it('says the pinned Node is missing and how to install it, not to run npm start again', () => {
    const message = nodeVersionProblem('v20.20.2', {npm_lifecycle_event: 'start'});
    expect(message).toContain('v20.20.2');
    expect(message).toContain('node_modules/.bin/node');
    expect(message).toContain('is missing');
    expect(message).toContain('npm rebuild node');
    expect(message).not.toMatch(/run (it|nib) [^.]*with `npm start/);
  });

  it('is no problem when the pinned Node did run it', () => {
    expect(nodeVersionProblem('v24.21.0', {npm_lifecycle_event: 'start'})).toBeUndefined();
  });
});
