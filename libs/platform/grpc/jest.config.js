module.exports = {
  displayName: 'platform-grpc',
  preset: '../../../jest.preset.js',
  rootDir: '.',
};
