module.exports = {
  displayName: 'platform-mysql',
  preset: '../../../jest.preset.js',
  rootDir: '.',
};
