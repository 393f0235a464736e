import {defineConfig} from 'vitest/config';

// The packed package, installed as a user would: `npm run check:package` (and CI). Not part of
// `npm test`: it builds, packs and fetches the newest npm, which takes a minute.
export default defineConfig({
  test: {
    include: ['test/package/*.check.ts'],
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
