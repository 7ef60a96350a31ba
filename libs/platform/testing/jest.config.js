module.exports = {
  displayName: 'platform-testing',
  preset: '../../../jest.preset.js',
  rootDir: '.',
};
