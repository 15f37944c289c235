// The route as React state, kept in step with the address bar: navigating pushes a history
// entry (or replaces it, for changes that are not a place to go back to), Back and Forward
// restore the route.

import { useCallback, useEffect, useState } from 'react';
import { parseRoute, routeUrl, sameRoute, type Route } from './route.js';

function current(): Route {
  return parseRoute(window.location.pathname, window.location.search);
}

export function useRoute(): { route: Route; navigate(next: Route, options?: { replace?: boolean }): void } {
  const [route, setRoute] = useState<Route>(current);

  useEffect(() => {
    const onPop = () => setRoute(current());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);

  const navigate = useCallback((next: Route, options: { replace?: boolean } = {}) => {
    const url = routeUrl(next);
    if (sameRoute(next, current()) && window.location.pathname + window.location.search === url) return;
    if (options.replace) window.history.replaceState(null, '', url);
    else window.history.pushState(null, '', url);
    setRoute(next);
  }, []);

  return { route, navigate };
}
