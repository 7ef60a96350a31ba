module.exports = {
  displayName: 'decisioning',
  preset: '../../jest.preset.js',
  rootDir: '.',
};
