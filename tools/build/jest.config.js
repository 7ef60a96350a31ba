// kubernetes-models, @kubernetes-models/* and the CIDR check they use are ESM only: swc turns them into CommonJS for jest.
module.exports = {
  displayName: 'tool-build',
  preset: '../../jest.preset.js',
  rootDir: '.',
  testTimeout: 60000,
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript', decorators: false }, target: 'es2022' }, module: { type: 'commonjs' } }],
    '/node_modules/(kubernetes-models|@kubernetes-models|is-cidr|cidr-regex)/.+\\.js$': [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  resolver: '<rootDir>/esm-only-resolver.js',
  transformIgnorePatterns: ['/node_modules/(?!(kubernetes-models|@kubernetes-models|is-cidr|cidr-regex)/)'],
};
