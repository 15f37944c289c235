export { ResponsesGateway } from './responses-gateway.js';
