module.exports = {
  displayName: 'storage-library',
  preset: '../../jest.preset.js',
  rootDir: '.',
  testTimeout: 30000,
};
