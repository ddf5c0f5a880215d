'use client';
import { useRef, useState } from 'react';
import { EmbeddedDashboard, type DashboardCustomEvent, type EmbeddedDashboardElement } from '@embedded-dashboard/react';

/** A client component of the app's own: event handlers cannot come from a Server Component. */
export function SalesDashboard({ srcTemplate, tokenUrl, region }: { srcTemplate: string; tokenUrl?: string; region: string }) {
  const ref = useRef<EmbeddedDashboardElement>(null);
  const [status, setStatus] = useState('Loading…');
  // #region dashboard-events
  // The dashboard's own events (its JS Event Button's, analyticsEventFired), newest first.
  const [events, setEvents] = useState<DashboardCustomEvent['detail'][]>([]);
  const onCustomEvent = (event: DashboardCustomEvent) => setEvents((seen) => [event.detail, ...seen].slice(0, 10));
  // #endregion dashboard-events
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
        onCustomEvent={onCustomEvent}
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
      <h2>Dashboard events</h2>
      <ul data-testid="dashboard-events">
        {events.map((event, i) => (
          <li key={events.length - i}>
            <b>{event.name}</b> {JSON.stringify(event.detail)}
          </li>
        ))}
      </ul>
    </>
  );
}
