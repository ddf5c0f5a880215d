import { createElement, useState } from 'react';

export interface HydrationAppProps {
  srcTemplate: string;
}

/**
 * The page both renders: server-side with `renderToString`, in the browser with `hydrateRoot`.
 * The button proves React still drives the element after hydration.
 */
export function HydrationApp({ srcTemplate }: HydrationAppProps) {
  const [dashboard, setDashboard] = useState('sales-overview');
  return createElement(
    'main',
    null,
    createElement('button', { id: 'switch', type: 'button', onClick: () => setDashboard('support-metrics') }, 'Switch dashboard'),
    createElement('embedded-dashboard', { dashboard, 'src-template': srcTemplate, 'token-url': '/embed/token' }),
  );
}
