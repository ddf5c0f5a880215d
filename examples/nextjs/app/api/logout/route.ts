import { NextResponse } from 'next/server';
import { SESSION_COOKIE } from '../../../lib/session';

export function POST(request: Request) {
  // Relative, as in ../login/route.ts.
  const response = new NextResponse(null, { status: 303, headers: { location: '/login' } });
  response.cookies.set(SESSION_COOKIE, '', { path: '/', maxAge: 0, secure: new URL(request.url).protocol === 'https:' });
  return response;
}
