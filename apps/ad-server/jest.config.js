module.exports = {
  displayName: 'ad-server',
  preset: '../../jest.preset.js',
  rootDir: '.',
  testTimeout: 60000,
};
