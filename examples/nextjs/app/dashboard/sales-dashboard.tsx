'use client';
import { useRef, useState } from 'react';
import { EmbeddedDashboard, type EmbeddedDashboardElement } from '@embedded-dashboard/react';

/** A client component of the app's own: event handlers cannot come from a Server Component. */
export function SalesDashboard({ srcTemplate, tokenUrl, region }: { srcTemplate: string; tokenUrl?: string; region: string }) {
  const ref = useRef<EmbeddedDashboardElement>(null);
  const [status, setStatus] = useState('Loading…');
  return (
    <>
      <EmbeddedDashboard
        ref={ref}
        dashboard="sales-overview"
        srcTemplate={srcTemplate}
        tokenUrl={tokenUrl}
        label="Sales overview"
        variables={{ region, regions: ['EU', 'US'] }}
        localeCode="de-DE"
        onLoad={(e) => setStatus(`Loaded in ${Math.round(e.detail.loadTime)} ms`)}
        onError={(e) => setStatus(`Unavailable (${e.detail.code})`)}
      >
        <p slot="error">
          The dashboard is unavailable.{' '}
          <button type="button" onClick={() => ref.current?.retry()}>
            Try again
          </button>
        </p>
      </EmbeddedDashboard>
      <p role="status" data-testid="dashboard-status">
        {status}
      </p>
    </>
  );
}
