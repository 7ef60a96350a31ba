module.exports = {
  displayName: 'asset-sources',
  preset: '../../jest.preset.js',
  rootDir: '.',
  testTimeout: 30000,
};
