module.exports = { displayName: 'tool-build', preset: '../../jest.preset.js', rootDir: '.', testTimeout: 60000 };
