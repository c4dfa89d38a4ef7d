const KEY = 'stagecraft.apiToken';

/**
 * The API token arrives once in the URL fragment (`#token=…`, never sent to a server or a log), is kept
 * for this tab only in sessionStorage, and the fragment is then cleared from the address bar and history.
 */
export function takeToken(): string | null {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ''));
  const fromUrl = fragment.get('token');
  if (fromUrl) {
    sessionStorage.setItem(KEY, fromUrl);
    history.replaceState(history.state, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(KEY);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}
