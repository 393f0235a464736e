import {defineConfig} from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores: e2e tests spawn nib and bash; more forks than cores only adds noise.
    maxWorkers: 2,
  },
});
