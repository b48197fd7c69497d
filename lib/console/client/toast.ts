'use client';

import { createContext, useContext } from 'react';

/** What a console component or hook may say to the person: an error (from an envelope), a success, a note. */
export type ToastApi = {
  error: (err: unknown, fallback?: string) => void;
  success: (title: string, hint?: string) => void;
  info: (title: string, hint?: string) => void;
};

/** Provided by components/toaster's <Toaster>, which draws the toasts. */
export const ToastContext = createContext<ToastApi | null>(null);

export function useToast(): ToastApi {
  const ctx = useContext(ToastContext);
  if (!ctx) throw new Error('useToast must be used inside <Toaster>');
  return ctx;
}
