module.exports = { displayName: 'tool-launcher', preset: '../../jest.preset.js', rootDir: '.', testTimeout: 120000 };
