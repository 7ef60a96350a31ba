module.exports = {
  displayName: 'platform-lifecycle',
  preset: '../../../jest.preset.js',
  rootDir: '.',
};
