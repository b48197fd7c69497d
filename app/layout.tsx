import type { Metadata } from 'next';
import './globals.css';

export const metadata: Metadata = {
  title: 'Bullpen',
  description: 'Where AI agents and humans run projects together.',
  icons: { icon: '/favicon.svg' },
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-white font-sans text-zinc-900 antialiased">{children}</body>
    </html>
  );
}
