import {expect, test} from 'vitest';
import {within} from '../../source/core/within.js';

test('within: the value when it comes in time, undefined when the time runs out first', async () => {
  expect(await within(Promise.resolve(7), 1000)).toBe(7);
  expect(await within(new Promise(() => {}), 10)).toBeUndefined();
  await expect(within(Promise.reject(new Error('no')), 1000)).rejects.toThrow('no');
});
