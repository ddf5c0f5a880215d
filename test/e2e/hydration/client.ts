import { createElement } from 'react';
import { hydrateRoot } from 'react-dom/client';
// Defines <embedded-dashboard> first: the server-rendered element upgrades before hydration,
// which is the order a real app's imports give.
import '@embedded-dashboard/element';
import { HydrationApp } from './app.js';

declare global {
  interface Window {
    __hydrationProps: { srcTemplate: string };
    __hydrated?: boolean;
  }
}

hydrateRoot(document.getElementById('root')!, createElement(HydrationApp, window.__hydrationProps), {
  onRecoverableError: (error) => console.error('recoverable', error),
});
window.__hydrated = true;
