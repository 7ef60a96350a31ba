// kubernetes-models and @kubernetes-models/* publish ESM only (their exports name an `import`
// condition and no `require`): resolve them, and only them, through `import`. swc turns the files
// into CommonJS (jest.config.js).
const ESM_ONLY = /^(kubernetes-models|@kubernetes-models\/[^/]+|is-cidr|cidr-regex)(\/|$)/;

module.exports = (request, options) => options.defaultResolver(request, ESM_ONLY.test(request) ? { ...options, conditions: ['import', 'default'] } : options);
