module.exports = {
  displayName: 'tagging-trackers',
  preset: '../../jest.preset.js',
  rootDir: '.',
  testTimeout: 30000,
};
