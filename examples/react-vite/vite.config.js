import { defineConfig } from 'vite';
import { SignJWT } from 'jose';

// The BFF CLI (`npx embedded-dashboard-bff`), reached on the page's own origin at /embed.
const bff = process.env.BFF_URL ?? 'http://127.0.0.1:8787';

/** Stands in for your app's login: `/login?customer=acme&next=metabase.html` sets the session cookie the BFF reads. */
const exampleLogin = () => {
  const customers = { acme: 'Acme Corp', globex: 'Globex' };
  const login = async (req, res, next) => {
    const url = new URL(req.url, 'http://page');
    const id = url.searchParams.get('customer') ?? '';
    if (url.pathname !== '/login' || !Object.hasOwn(customers, id) || !process.env.SESSION_SECRET) return next();
    const session = await new SignJWT({ org_id: id, org_name: customers[id] })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(process.env.SESSION_SECRET));
    const page = ['superset.html', 'metabase.html'].includes(url.searchParams.get('next')) ? url.searchParams.get('next') : 'superset.html';
    res.writeHead(303, { location: `/${page}`, 'set-cookie': `session=${session}; Path=/; HttpOnly; SameSite=Lax` }).end();
  };
  return {
    name: 'example-login',
    configureServer: (server) => void server.middlewares.use(login),
    configurePreviewServer: (server) => void server.middlewares.use(login),
  };
};

export default defineConfig({
  plugins: [exampleLogin()],
  // Same proxy for `vite` and `vite preview` (preview.proxy defaults to server.proxy).
  server: { proxy: { '/embed': bff } },
  build: { rollupOptions: { input: { superset: 'superset.html', metabase: 'metabase.html' } } },
});
