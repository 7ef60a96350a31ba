module.exports = {
  displayName: 'platform-outbound-fetch',
  preset: '../../../jest.preset.js',
  rootDir: '.',
};
