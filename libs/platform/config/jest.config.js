module.exports = {
  displayName: 'platform-config',
  preset: '../../../jest.preset.js',
  rootDir: '.',
};
