/** History routing: links change the path with pushState and the app re-renders on this event. */
export const NAVIGATE = 'stagecraft:navigate';

export function navigate(href: string): void {
  if (!href.startsWith('/') || href.startsWith('//')) return;
  history.pushState(null, '', href);
  window.dispatchEvent(new Event(NAVIGATE));
}

export function followLink(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = event.currentTarget as HTMLAnchorElement;
  event.preventDefault();
  navigate(anchor.getAttribute('href') ?? '/');
}
