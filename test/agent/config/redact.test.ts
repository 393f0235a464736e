import {expect, test} from 'vitest';
import {redact} from '../../../source/agent/config/redact.js';

test('every occurrence of each secret is masked; short placeholder keys are left alone', () => {
  expect(redact('a sk-123456789 b sk-123456789', ['sk-123456789'])).toBe('a [redacted] b [redacted]');
  expect(redact('key x in text', ['x', undefined, ''])).toBe('key x in text');
  expect(redact('one sk-aaaaaaaa two sk-bbbbbbbb', ['sk-aaaaaaaa', 'sk-bbbbbbbb'])).toBe('one [redacted] two [redacted]');
});
