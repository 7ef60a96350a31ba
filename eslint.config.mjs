import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

// One module-boundary policy for the whole workspace. Tags live in each project.json.
export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  { ignores: ['**/dist', '**/node_modules', '**/.data', 'libs/contracts/src/gen/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            // Apps are deployables: they compose libraries and never import another app.
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:platform', 'type:domain', 'type:contracts', 'type:testing'] },
            // Domain logic more than one deployable runs (e.g. deciding a dynamic campaign's creative): pure, no mechanisms.
            { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain', 'type:contracts'] },
            { sourceTag: 'type:platform', onlyDependOnLibsWithTags: ['type:platform', 'type:contracts', 'type:testing'] },
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:platform', 'type:contracts', 'type:testing'] },
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:platform', 'type:contracts', 'type:testing'] },
            // Services never import each other: each scope sees only itself and shared code.
            { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:gateway', 'scope:shared'] },
            { sourceTag: 'scope:channels-plans', onlyDependOnLibsWithTags: ['scope:channels-plans', 'scope:shared'] },
            { sourceTag: 'scope:content-creative', onlyDependOnLibsWithTags: ['scope:content-creative', 'scope:shared'] },
            { sourceTag: 'scope:asset-sources', onlyDependOnLibsWithTags: ['scope:asset-sources', 'scope:shared'] },
            { sourceTag: 'scope:storage-library', onlyDependOnLibsWithTags: ['scope:storage-library', 'scope:shared'] },
            { sourceTag: 'scope:tagging-trackers', onlyDependOnLibsWithTags: ['scope:tagging-trackers', 'scope:shared'] },
            { sourceTag: 'scope:templates', onlyDependOnLibsWithTags: ['scope:templates', 'scope:shared'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
          ],
        },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
];
