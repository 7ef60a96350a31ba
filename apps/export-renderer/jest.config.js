module.exports = {
  displayName: 'export-renderer',
  preset: '../../jest.preset.js',
  rootDir: '.',
  testTimeout: 60000,
};
