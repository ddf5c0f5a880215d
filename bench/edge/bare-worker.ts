/** Row 8b's baseline: a bare Hono Worker answering `GET /healthz` with a constant JSON body. */
import { Hono } from 'hono';

const app = new Hono();
app.get('/healthz', (c) => c.json({ status: 'ok' }));

export default app;
