module.exports = {
  displayName: 'platform-service',
  preset: '../../../jest.preset.js',
  rootDir: '.',
  testTimeout: 30000,
};
