export { startDemoProvider, demoTurn } from './demo-model.js';
