module.exports = {
  displayName: 'platform-secrets',
  preset: '../../../jest.preset.js',
  rootDir: '.',
};
