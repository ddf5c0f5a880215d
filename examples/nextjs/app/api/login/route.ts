import { NextResponse } from 'next/server';
import { SESSION_COOKIE, USERS, signSession } from '../../../lib/session';

/** The app's own login: checks the form, sets the session cookie the BFF also reads. */
export async function POST(request: Request) {
  const form = await request.formData();
  const email = String(form.get('email') ?? '');
  const user = USERS[email];
  if (!user || user.password !== form.get('password')) return new NextResponse('Wrong email or password', { status: 401 });
  const response = NextResponse.redirect(new URL('/dashboard', request.url), 303);
  response.cookies.set(SESSION_COOKIE, await signSession(email, user.org), { httpOnly: true, sameSite: 'lax', path: '/' });
  return response;
}
