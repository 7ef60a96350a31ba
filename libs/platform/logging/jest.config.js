module.exports = {
  displayName: 'platform-logging',
  preset: '../../../jest.preset.js',
  rootDir: '.',
};
