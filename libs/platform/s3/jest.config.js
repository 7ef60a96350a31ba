module.exports = {
  displayName: 'platform-s3',
  preset: '../../../jest.preset.js',
  rootDir: '.',
};
