// Superset's protocol registers itself: the React component renders the element, this import
// teaches it protocol="superset" (and adds getDataMask, getActiveTabs, getDashboardPermalink).
import '@embedded-dashboard/element/superset';
import { EmbeddedDashboard } from '@embedded-dashboard/react';
import { useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';

function Sales() {
  const dashboard = useRef(null);
  const [status, setStatus] = useState('loading…');
  const [dataMask, setDataMask] = useState('');
  return (
    <main>
      <h1>Sales</h1>
      <EmbeddedDashboard
        ref={dashboard}
        protocol="superset"
        dashboard={import.meta.env.VITE_SUPERSET_DASHBOARD}
        srcTemplate={`${import.meta.env.VITE_SUPERSET_URL}/embedded/{dashboard}`}
        tokenUrl="/embed/token"
        label="Sales (Apache Superset)"
        sandbox="allow-same-origin allow-scripts allow-presentation allow-downloads allow-forms allow-popups"
        allow="fullscreen; clipboard-write"
        hide-title=""
        onLoad={(event) => setStatus(`loaded in ${Math.round(event.detail.loadTime)} ms`)}
        onError={(event) => setStatus(`error: ${event.detail.code}`)}
      />
      <p>
        <button id="filters" type="button" onClick={async () => setDataMask(JSON.stringify(await dashboard.current.getDataMask(), null, 2))}>
          Show the filters
        </button>
      </p>
      <output id="status">{status}</output>
      <pre id="data-mask">{dataMask}</pre>
    </main>
  );
}

createRoot(document.getElementById('app')).render(<Sales />);
