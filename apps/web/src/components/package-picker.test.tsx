// The saved-package choice the order forms show, rendered by React to markup (renderToStaticMarkup: no DOM, no effects).
import { renderToStaticMarkup } from 'react-dom/server';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { beforeAll, expect, it, vi } from 'vitest';
import type { SavedPackage } from '@portal/contract';

type Modules = { packagesQuery: typeof import('../api/packages.ts').packagesQuery; PackagePicker: typeof import('./package-picker.tsx').PackagePicker };
let m: Modules;
beforeAll(async () => {
  // client.ts reads the page's address and sets a global when it loads.
  vi.stubGlobal('window', { location: { href: 'https://shop.test/', origin: 'https://shop.test' } });
  m = { ...(await import('../api/packages.ts')), ...(await import('./package-picker.tsx')) };
  return () => vi.unstubAllGlobals();
});

const render = (packages: SavedPackage[] | undefined) => {
  const client = new QueryClient();
  if (packages) client.setQueryData(m.packagesQuery().queryKey, { packages });
  return renderToStaticMarkup(
    <QueryClientProvider client={client}>
      <m.PackagePicker onPick={() => undefined} />
    </QueryClientProvider>,
  );
};
const options = (html: string) => [...html.matchAll(/<option value="([^"]*)"[^>]*>([^<]*)<\/option>/g)].map(([, value, text]) => [value, text]);

it("offers the customer's packages by their name, weight and size", () => {
  const html = render([
    { _id: 'p1', name: 'Letter', weight: 3, weightUnit: 'oz', length: null, width: null, height: null },
    { _id: 'p2', name: 'Small box', weight: 2.5, weightUnit: 'lb', length: 10, width: 8, height: 4 },
  ]);
  expect(html).toContain('<label class="form-label" for="saved-package">Saved Package</label>');
  expect(options(html)).toEqual([
    ['', 'Choose a saved package'],
    ['p1', 'Letter · 3 oz'],
    ['p2', 'Small box · 2.5 lb · 10 × 8 × 4 in'],
  ]);
  expect(html).not.toContain('disabled');
});

it('says where packages are saved when there are none, and offers nothing', () => {
  for (const html of [render([]), render(undefined)]) {
    expect(options(html)).toEqual([['', 'No saved packages (add them on the Packages page)']]);
    expect(html).toMatch(/<select[^>]*disabled/);
  }
});
