module.exports = {
  displayName: 'platform-nats',
  preset: '../../../jest.preset.js',
  rootDir: '.',
};
