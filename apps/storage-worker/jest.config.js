module.exports = {
  displayName: 'storage-worker',
  preset: '../../jest.preset.js',
  rootDir: '.',
  testTimeout: 30000,
};
