module.exports = {
  displayName: 'platform-jobs',
  preset: '../../../jest.preset.js',
  rootDir: '.',
};
