/**
 * cli-highlight for the screen, imported with import() where it is needed: it brings highlight.js
 * (~1.2 MB) with it. Through this module, not `import('cli-highlight')` directly: bundled with code
 * splitting, a dynamic import of that CommonJS package resolved to an object without `highlight`.
 */
export {highlight} from 'cli-highlight';
