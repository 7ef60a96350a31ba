// Shared jest settings: swc for speed, tsconfig path aliases mapped to library sources.
const path = require('node:path');
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  const key = '^' + alias.replace('/*', '/(.*)') + '$';
  moduleNameMapper[key] = path.join(__dirname, target.replace('/*', '/$1'));
}

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript', decorators: false }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
  testMatch: ['**/?(*.)+(spec|integration-spec|e2e-spec).ts'],
  clearMocks: true,
};
