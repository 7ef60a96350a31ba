module.exports = {
  displayName: 'gateway',
  preset: '../../jest.preset.js',
  rootDir: '.',
  testTimeout: 30000,
};
