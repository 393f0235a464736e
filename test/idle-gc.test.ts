import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest';
import {spawnSync} from 'node:child_process';
import {collectWhenIdle, V8_FLAGS} from '../source/idle-gc.js';

// When nib gives memory back: once per turn, after the session is free and the screen quiet.

describe('collectWhenIdle', () => {
  let clock = 0;
  let lastWrite = 0;
  let busyListener: (busy: boolean) => void = () => {};
  const collect = vi.fn();
  let stop: () => void = () => {};

  beforeEach(() => {
    vi.useFakeTimers();
    clock = 0;
    lastWrite = 0;
    collect.mockReset();
    stop = collectWhenIdle({
      onBusy: listener => {
        busyListener = listener;
        return () => (busyListener = () => {});
      },
      lastActivity: () => lastWrite,
      quietMs: 1500,
      now: () => clock,
      collect,
    });
  });
  afterEach(() => {
    stop();
    vi.useRealTimers();
  });

  const advance = (ms: number) => {
    clock += ms;
    vi.advanceTimersByTime(ms);
  };

  it('collects once the turn is over and the screen has been quiet, and only once', () => {
    busyListener(true);
    advance(5000);
    expect(collect).not.toHaveBeenCalled();
    busyListener(false);
    lastWrite = clock;
    advance(1499);
    expect(collect).not.toHaveBeenCalled();
    advance(1);
    expect(collect).toHaveBeenCalledTimes(1);
    advance(60_000);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('waits while keys are being typed (the screen changes)', () => {
    busyListener(true);
    busyListener(false);
    for (let i = 0; i < 10; i++) {
      advance(1000);
      lastWrite = clock;
    }
    expect(collect).not.toHaveBeenCalled();
    advance(1500);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('a new turn before the quiet spell cancels it; the next free spell collects', () => {
    busyListener(false);
    advance(1000);
    busyListener(true);
    advance(10_000);
    expect(collect).not.toHaveBeenCalled();
    busyListener(false);
    advance(1500);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('stops when told to', () => {
    busyListener(false);
    stop();
    advance(10_000);
    expect(collect).not.toHaveBeenCalled();
  });
});

describe('the V8 flags nib sets', () => {
  // V8 does not throw on a flag it lacks: it prints a line to stderr, which in the TUI would land
  // on the screen. Each flag must be one this Node's V8 takes without a word.
  it.each(Object.entries(V8_FLAGS))('%s (%s) is taken quietly', (_name, flag) => {
    const {stderr, status} = spawnSync(process.execPath, ['-e', `require('node:v8').setFlagsFromString(${JSON.stringify(flag)})`], {encoding: 'utf8'});
    expect({stderr, status}).toEqual({stderr: '', status: 0});
    const options = spawnSync(process.execPath, ['--v8-options'], {encoding: 'utf8'}).stdout;
    expect(options).toContain(flag.replace(/^--/, '').replace(/=.*$/, ''));
  });
});
