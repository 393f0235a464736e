import {expect, test} from 'vitest';
import {createRedactor, redact} from '../../../source/agent/config/redact.js';

test('every occurrence of each secret is masked; short placeholder keys are left alone', () => {
  expect(redact('a sk-123456789 b sk-123456789', ['sk-123456789'])).toBe('a [redacted] b [redacted]');
  expect(redact('key x in text', ['x', undefined, ''])).toBe('key x in text');
  expect(redact('one sk-aaaaaaaa two sk-bbbbbbbb', ['sk-aaaaaaaa', 'sk-bbbbbbbb'])).toBe('one [redacted] two [redacted]');
});

test("a URL's user name and password are masked, however short; the rest of the URL stays", () => {
  expect(redact('500 from http://me:pw@proxy:8080/v1 (retrying)', [])).toBe('500 from http://[redacted]@proxy:8080/v1 (retrying)');
  expect(redact('see https://token@host/x and mail a@b.c', [])).toBe('see https://[redacted]@host/x and mail a@b.c');
  expect(createRedactor({})('{"message":"cut from http://u:p@127.0.0.1:1/v1"}')).toBe('{"message":"cut from http://[redacted]@127.0.0.1:1/v1"}');
  // A password may hold @ or ' (the URL parser takes both): masked up to the last @ before the host.
  expect(redact('at https://user:p@ss@host/v1', [])).toBe('at https://[redacted]@host/v1');
  expect(redact("at https://me:it's@proxy/v1", [])).toBe('at https://[redacted]@proxy/v1');
  expect(redact('https://host/v1 and a@b.c', [])).toBe('https://host/v1 and a@b.c');
});
