import { NextResponse } from 'next/server';
import { SESSION_COOKIE, USERS, signSession } from '../../../lib/session';

/** The app's own login: checks the form, sets the session cookie the BFF also reads. */
export async function POST(request: Request) {
  const form = await request.formData();
  const email = String(form.get('email') ?? '');
  const user = USERS[email];
  if (!user || user.password !== form.get('password')) return new NextResponse('Wrong email or password', { status: 401 });
  // A relative Location: Next.js builds request.url from its own listen address (localhost), not
  // from the host the browser asked for, so an absolute URL from it would leave a proxied app.
  const response = new NextResponse(null, { status: 303, headers: { location: '/dashboard' } });
  // request.url does follow the proxy's X-Forwarded-Proto: Secure whenever the browser is on HTTPS.
  const secure = new URL(request.url).protocol === 'https:';
  response.cookies.set(SESSION_COOKIE, await signSession(email, user.org), { httpOnly: true, sameSite: 'lax', path: '/', secure });
  return response;
}
