module.exports = {
  displayName: 'channels-plans',
  preset: '../../jest.preset.js',
  rootDir: '.',
  testTimeout: 30000,
};
