// Metabase's protocol registers itself: the React component renders the element, this import
// teaches it protocol="metabase" (and its dashboard-location event).
import '@embedded-dashboard/element/metabase';
import { EmbeddedDashboard } from '@embedded-dashboard/react';
import { useEffect, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';

function Sales() {
  const dashboard = useRef(null);
  const [status, setStatus] = useState('loading…');
  const [location, setLocation] = useState('');
  // dashboard-location has no on… prop: listen on the element.
  useEffect(() => {
    const element = dashboard.current;
    const listener = (event) => setLocation(JSON.stringify(event.detail));
    element.addEventListener('dashboard-location', listener);
    return () => element.removeEventListener('dashboard-location', listener);
  }, []);
  return (
    <main>
      <h1>Sales</h1>
      <EmbeddedDashboard
        ref={dashboard}
        protocol="metabase"
        dashboard={import.meta.env.VITE_METABASE_DASHBOARD}
        srcTemplate={`${import.meta.env.VITE_METABASE_URL}/embed/dashboard/{token}`}
        tokenUrl="/embed/token"
        label="Sales (Metabase)"
        sandbox="allow-same-origin allow-scripts allow-forms allow-popups allow-downloads"
        titled="true"
        bordered="false"
        onLoad={(event) => setStatus(`loaded in ${Math.round(event.detail.loadTime)} ms`)}
        onError={(event) => setStatus(`error: ${event.detail.code}`)}
      />
      <output id="status">{status}</output>
      <pre id="location">{location}</pre>
    </main>
  );
}

createRoot(document.getElementById('app')).render(<Sales />);
