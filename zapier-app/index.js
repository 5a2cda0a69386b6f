// Zapier's runtime loads index.js beside package.json for a CommonJS app; the app itself is compiled from src/ to dist/.
module.exports = require('./dist/index.js').default;
