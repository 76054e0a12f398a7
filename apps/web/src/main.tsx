/**
 * The page's first script: nothing runs, and no chunk is asked for, before the browser has painted the page's own
 * spinner (index.html); then the app (boot.tsx) is imported. A chunk that arrived before the first paint would be
 * counted as holding it back by Lighthouse's simulation (FCP 1.8 s instead of 0.7 s on a signed-in first load), and
 * evaluating React's chunk before the paint would really hold it back. See ARCHITECTURE.md#the-first-paint.
 */
// The stylesheets stay the entry's: the build names them in index.html as a low-priority preload that boot.tsx applies.
import 'bootstrap/dist/css/bootstrap.min.css';
import './styles.css';

const afterPaint = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));

void afterPaint().then(() => import('./boot.tsx'));
