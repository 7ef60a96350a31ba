module.exports = {
  displayName: 'templates',
  preset: '../../jest.preset.js',
  rootDir: '.',
  testTimeout: 30000,
};
