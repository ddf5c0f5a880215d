import type { ReactNode } from 'react';

export const metadata = { title: 'Northwind (Next.js example)', icons: { icon: 'data:,' } };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
