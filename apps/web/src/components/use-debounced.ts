import { useEffect, useState } from 'react';

/** Typing settles for this long before a search is sent. */
export const SEARCH_DELAY_MS = 300;

/** The value once it has stopped changing for `delay` ms. */
export function useDebounced<T>(value: T, delay = SEARCH_DELAY_MS): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return settled;
}
