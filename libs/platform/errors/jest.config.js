module.exports = {
  displayName: 'platform-errors',
  preset: '../../../jest.preset.js',
  rootDir: '.',
};
