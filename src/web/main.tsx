// Browser entry of the workbench.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/index.js';
import './styles/base.css';
import './styles/layout.css';
import './styles/sidebar.css';
import './styles/transcript.css';
import './styles/inspector.css';
import './styles/code-highlight.css';

const container = document.getElementById('root');
if (container === null) throw new Error('index.html has no #root element');
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
