export { createFileLoader, type FileLoader, type FilePolicy } from './file-loader.js';
