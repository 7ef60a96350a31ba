module.exports = {
  displayName: 'platform-telemetry',
  preset: '../../../jest.preset.js',
  rootDir: '.',
};
