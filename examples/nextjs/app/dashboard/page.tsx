import { redirect } from 'next/navigation';
import { currentSession, env } from '../../lib/session';
import { SalesDashboard } from './sales-dashboard';

/**
 * A Server Component: the session is read on the server; the element is rendered there too.
 * `?bff=edge` takes the tokens from the route handler in the edge runtime instead.
 */
export default async function DashboardPage({ searchParams }: { searchParams: Promise<{ bff?: string }> }) {
  const session = await currentSession();
  if (!session) redirect('/login');
  const srcTemplate = env('DASHBOARD_SRC_TEMPLATE', `${env('EMBED_UPSTREAM_URL')}/iframe/{dashboard}`);
  return (
    <main>
      <h1>{session.org_name}</h1>
      <SalesDashboard
        srcTemplate={srcTemplate}
        tokenUrl={(await searchParams).bff === 'edge' ? '/edge/embed/token' : undefined}
        region={session.embed_properties?.region ?? ''}
      />
      <form method="post" action="/api/logout">
        <button>Sign out</button>
      </form>
    </main>
  );
}
