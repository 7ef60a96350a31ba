module.exports = {
  displayName: 'content-creative',
  preset: '../../jest.preset.js',
  rootDir: '.',
  testTimeout: 30000,
};
