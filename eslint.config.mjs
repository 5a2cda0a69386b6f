import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Domain code (services, repos, schemas, workers) stays free of transports: only adapters import them.
const adapterFiles = [
  'service/src/http/**',
  'service/src/ws/**',
  'service/src/mcp/**',
  'service/src/graphql/**',
  'service/src/**/*.routes.ts',
  'service/src/app.ts',
  'service/src/main.ts',
  'service/src/runtime.ts',
  'service/src/testing/**',
  'service/src/**/*.test.ts',
];

const noMediasoup = { name: 'mediasoup', message: 'Only service/src/media/ imports mediasoup.' };
const noMediasoupDeep = { group: ['mediasoup/*'], message: 'Only service/src/media/ imports mediasoup.' };

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly', __dirname: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    files: ['service/src/**/*.ts'],
    ignores: ['service/src/media/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [noMediasoup], patterns: [noMediasoupDeep] }] },
  },
  {
    files: ['service/src/**/*.ts'],
    ignores: [...adapterFiles, 'service/src/media/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noMediasoup, { name: 'express', message: 'Domain code never imports express; only adapters (http/, *.routes.ts) do.' }],
          patterns: [
            noMediasoupDeep,
            { group: ['**/http/*', '**/http'], message: 'Domain code never imports http/: throw AppError from shared/errors instead.' },
            { group: ['**/ws/*', '**/mcp/*', '**/graphql/*'], message: 'Domain code never imports an adapter folder.' },
          ],
        },
      ],
    },
  },
  { files: ['**/*.js', '**/*.cjs'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
);
