export { App } from './app.js';
