module.exports = { displayName: 'tool-admin', preset: '../../jest.preset.js', rootDir: '.', testTimeout: 120000 };
